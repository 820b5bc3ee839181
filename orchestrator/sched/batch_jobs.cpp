#include "orchestrator/sched/batch_jobs.hpp"

#include <filesystem>
#include <functional>
#include <sstream>

#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/job_arrays.hpp"
#include "orchestrator/sched/packed_allocation.hpp"
#include "orchestrator/sched/packing_plan.hpp"

namespace scalestudy::sched {
namespace {

// A stable name for an array's wrapper: the hash of its runs' ids.
std::string wrapper_stem(const std::vector<const PreparedRun*>& runs) {
  std::string ids;
  for (const PreparedRun* run : runs) ids += run->spec.run_id + ",";
  std::ostringstream stem;
  stem << "array-" << std::hex << std::hash<std::string>{}(ids);
  return stem.str();
}

Result<BatchJob> write_array_job(const std::vector<const PreparedRun*>& runs,
                                 const BatchOptions& options) {
  std::string dir = options.array_script_dir.empty()
                        ? std::filesystem::path(runs.front()->out_dir).parent_path().string()
                        : options.array_script_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return Status::error(dir + ": " + error.message());
  std::string stem = wrapper_stem(runs);
  std::string path = dir + "/" + stem + ".sbatch";
  std::string script =
      array_wrapper_script(runs, script_allocation_directives(runs.front()->script_path),
                           array_job_name(*runs.front()), dir + "/" + stem + "_%a.out");
  if (Status written = common::write_file_replacing(path, script, 0644); !written) {
    return written.with_context("writing the array wrapper script");
  }
  BatchJob job;
  job.script_path = path;
  job.runs = runs;
  job.is_array = true;
  job.submit_options.push_back(array_option(runs.size(), options.array_throttle));
  return job;
}

// An array a submit limit refused as a whole may still fit in part: its runs go as jobs of
// their own until the limit refuses again. Returns how many were submitted.
size_t submit_runs_singly(const BatchJob& array, const BatchOptions& options,
                          const SubmitOne& submit_one, const SubmitCallbacks& callbacks,
                          std::vector<Submission>& submissions) {
  size_t submitted = 0;
  for (const PreparedRun* run : array.runs) {
    BatchJob single;
    single.script_path = run->script_path;
    single.submit_options = options.extra_sbatch_args;
    single.runs = {run};
    auto job_id = submit_one(single, single.submit_options);
    if (!job_id) break;  // the rest wait for the next wave
    Submission submission{run->spec.run_id, *job_id};
    if (callbacks.submitted) callbacks.submitted(submission);
    submissions.push_back(std::move(submission));
    ++submitted;
  }
  return submitted;
}

// A packed wave: each partition's runs cut into allocations that fit its MaxTime
// (packing_plan.hpp), one job each, as many as the free submit slots take.
Result<BatchWave> plan_packed_wave(const std::vector<PreparedRun>& runs,
                                   const BatchOptions& options, const WaveCapacity& capacity) {
  std::vector<const RunSpec*> specs;
  for (const PreparedRun& run : runs) specs.push_back(&run.spec);
  auto allocations = plan_packed_sweep(specs, options.measured_run_s, options.packed_concurrent,
                                       capacity.partitions);
  if (!allocations) return allocations.status();
  BatchWave wave;
  for (const PackedAllocationPlan& allocation : *allocations) {
    std::vector<const PreparedRun*> members;
    for (size_t index : allocation.runs) members.push_back(&runs[index]);
    if (capacity.free_slots && static_cast<int>(wave.jobs.size()) >= *capacity.free_slots) {
      wave.waiting.insert(wave.waiting.end(), members.begin(), members.end());
      continue;
    }
    auto job = write_packed_job(members, options.array_script_dir, options.packed_concurrent,
                                allocation.time_minutes);
    if (!job) return job.status();
    job->submit_options = options.extra_sbatch_args;
    wave.jobs.push_back(std::move(*job));
  }
  return wave;
}

}  // namespace

std::vector<SchedulerOption> batch_job_options() {
  return {{"--no-arrays", "", "one job per run instead of job arrays for same-shape runs"},
          {"--ordered", "", "each job waits for the previous one (--dependency=afterany)"},
          {"--hold", "", "submit held (release with scontrol release)"}};
}

std::vector<SchedulerOption> batch_system_keys() {
  return {{"partition", "NAME", "the partition (sbatch --partition)"},
          {"account", "NAME", "the account charged (sbatch --account)"},
          {"qos", "NAME", "the quality of service (sbatch --qos)"},
          {"constraint", "FEATURES", "node features (sbatch --constraint)"},
          {"reservation", "NAME", "a reservation (sbatch --reservation)"}};
}

BatchOptions parse_batch_options(const SchedulerContext& context,
                                 const SchedulerOptionValues& values) {
  BatchOptions options;
  options.use_job_arrays = values.count("--no-arrays") == 0;
  options.ordered = values.count("--ordered") != 0;
  if (values.count("--hold") != 0) options.extra_sbatch_args.push_back("--hold");
  options.array_throttle = context.array_throttle;
  options.packed = context.packed;
  options.packed_concurrent = context.packed_concurrent;
  options.measured_run_s = context.measured_run_s;
  options.array_script_dir = context.array_script_dir;
  options.command_timeout_ms = context.command_timeout_ms;
  return options;
}

Result<std::vector<BatchJob>> plan_batch_jobs(const std::vector<PreparedRun>& runs,
                                              const BatchOptions& options) {
  auto wave = plan_batch_wave(runs, options, {});
  if (!wave) return wave.status();
  return std::move(wave->jobs);
}

Result<BatchWave> plan_batch_wave(const std::vector<PreparedRun>& runs, const BatchOptions& options,
                                  const WaveCapacity& capacity) {
  if (options.packed) return plan_packed_wave(runs, options, capacity);
  std::vector<std::vector<size_t>> groups;
  if (options.use_job_arrays && !options.ordered) {
    auto grouped = group_by_shape(runs);
    if (!grouped) return grouped.status();
    groups = std::move(*grouped);
  } else {
    for (size_t index = 0; index < runs.size(); ++index) groups.push_back({index});
  }
  BatchWave wave;
  std::vector<bool> in_wave(runs.size(), false);
  for (const auto& group : fit_wave(groups, capacity)) {
    std::vector<const PreparedRun*> members;
    for (size_t index : group) {
      members.push_back(&runs[index]);
      in_wave[index] = true;
    }
    if (members.size() == 1) {
      wave.jobs.push_back({members.front()->script_path, {}, members, false});
      continue;
    }
    auto job = write_array_job(members, options);
    if (!job) return job.status();
    wave.jobs.push_back(std::move(*job));
  }
  for (auto& job : wave.jobs) {
    job.submit_options.insert(job.submit_options.end(), options.extra_sbatch_args.begin(),
                              options.extra_sbatch_args.end());
  }
  for (size_t index = 0; index < runs.size(); ++index) {
    if (!in_wave[index]) wave.waiting.push_back(&runs[index]);
  }
  return wave;
}

Result<std::vector<Submission>> submit_batch_jobs(const std::vector<BatchJob>& jobs,
                                                  const BatchOptions& options,
                                                  const SubmitOne& submit_one,
                                                  const SubmitCallbacks& callbacks) {
  std::vector<Submission> submissions;
  std::string previous_job_id;
  for (auto job_at = jobs.begin(); job_at != jobs.end(); ++job_at) {
    const BatchJob& job = *job_at;
    std::vector<std::string> submit_options = job.submit_options;
    if (options.ordered && !previous_job_id.empty()) {
      submit_options.push_back("--dependency=afterany:" + previous_job_id);
    }
    auto job_id = submit_one(job, submit_options);
    // The limit was reached after all (jobs submitted elsewhere meanwhile, or limits we
    // could not read): this job and the rest wait for the next wave.
    if (auto refusal = job_id ? std::nullopt : submit_limit_refusal(job_id.status().message())) {
      size_t next_run =
          job.is_array ? submit_runs_singly(job, options, submit_one, callbacks, submissions) : 0;
      for (auto waiting = job_at; waiting != jobs.end(); ++waiting) {
        for (; next_run < waiting->runs.size(); ++next_run) {
          if (callbacks.deferred)
            callbacks.deferred(waiting->runs[next_run]->spec.run_id, *refusal);
        }
        next_run = 0;
      }
      return submissions;
    }
    // The caller records the error as the reason of every run not submitted: it names no
    // run, so no run's reason quotes another's id.
    if (!job_id) {
      return job.is_array ? job_id.status().with_context("array job of " +
                                                         std::to_string(job.runs.size()) + " runs")
                          : job_id.status();
    }
    previous_job_id = *job_id;
    if (job.is_packed) {
      report_packed_runs(job, *job_id, callbacks, submissions);
      continue;
    }
    for (size_t task = 0; task < job.runs.size(); ++task) {
      Submission submission{job.runs[task]->spec.run_id,
                            job.is_array ? *job_id + "_" + std::to_string(task) : *job_id};
      if (callbacks.submitted) callbacks.submitted(submission);
      submissions.push_back(std::move(submission));
    }
  }
  return submissions;
}

Result<std::vector<Submission>> submit_wave(const std::vector<PreparedRun>& runs,
                                            const BatchOptions& options,
                                            const WaveCapacity& capacity,
                                            const SubmitOne& submit_one,
                                            const SubmitCallbacks& callbacks) {
  auto wave = plan_batch_wave(runs, options, capacity);
  if (!wave) return wave.status();
  for (const PreparedRun* run : wave->waiting) {
    if (callbacks.deferred) callbacks.deferred(run->spec.run_id, capacity.limit);
  }
  return submit_batch_jobs(wave->jobs, options, submit_one, callbacks);
}

}  // namespace scalestudy::sched
