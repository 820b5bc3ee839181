#include "orchestrator/sched/batch_jobs.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "orchestrator/sched/job_arrays.hpp"

namespace scalestudy::sched {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

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
      array_wrapper_script(runs, allocation_directives(read_text(runs.front()->script_path)),
                           array_job_name(*runs.front()), dir + "/" + stem + "_%a.out");
  std::ofstream file(path, std::ios::trunc);
  file << script;
  if (!file.flush()) return Status::error(path + ": cannot write the array wrapper script");
  BatchJob job;
  job.script_path = path;
  job.runs = runs;
  job.is_array = true;
  job.submit_options.push_back(array_option(runs.size(), options.array_throttle));
  return job;
}

}  // namespace

std::vector<SchedulerOption> batch_job_options() {
  return {{"--no-arrays", "", "one job per run instead of job arrays for same-shape runs"},
          {"--ordered", "", "each job waits for the previous one (--dependency=afterany)"},
          {"--hold", "", "submit held (release with scontrol release)"}};
}

BatchOptions parse_batch_options(const SchedulerContext& context,
                                 const SchedulerOptionValues& values) {
  BatchOptions options;
  options.use_job_arrays = values.count("--no-arrays") == 0;
  options.ordered = values.count("--ordered") != 0;
  if (values.count("--hold") != 0) options.extra_sbatch_args.push_back("--hold");
  options.array_throttle = context.array_throttle;
  options.array_script_dir = context.array_script_dir;
  options.command_timeout_ms = context.command_timeout_ms;
  return options;
}

Result<std::vector<BatchJob>> plan_batch_jobs(const std::vector<PreparedRun>& runs,
                                              const BatchOptions& options) {
  std::vector<std::vector<size_t>> groups;
  if (options.use_job_arrays && !options.ordered) {
    auto grouped = group_by_shape(runs);
    if (!grouped) return grouped.status();
    groups = std::move(*grouped);
  } else {
    for (size_t index = 0; index < runs.size(); ++index) groups.push_back({index});
  }
  std::vector<BatchJob> jobs;
  for (const auto& group : groups) {
    std::vector<const PreparedRun*> members;
    for (size_t index : group) members.push_back(&runs[index]);
    if (members.size() == 1) {
      jobs.push_back({members.front()->script_path, {}, members, false});
      continue;
    }
    auto job = write_array_job(members, options);
    if (!job) return job.status();
    jobs.push_back(std::move(*job));
  }
  for (auto& job : jobs) {
    job.submit_options.insert(job.submit_options.end(), options.extra_sbatch_args.begin(),
                              options.extra_sbatch_args.end());
  }
  return jobs;
}

Result<std::vector<Submission>> submit_batch_jobs(const std::vector<BatchJob>& jobs,
                                                  const BatchOptions& options,
                                                  const SubmitOne& submit_one,
                                                  const SubmitCallbacks& callbacks) {
  std::vector<Submission> submissions;
  std::string previous_job_id;
  for (const BatchJob& job : jobs) {
    std::vector<std::string> submit_options = job.submit_options;
    if (options.ordered && !previous_job_id.empty()) {
      submit_options.push_back("--dependency=afterany:" + previous_job_id);
    }
    auto job_id = submit_one(job, submit_options);
    // The caller records the error as the reason of every run not submitted: it names no
    // run, so no run's reason quotes another's id.
    if (!job_id) {
      return job.is_array ? job_id.status().with_context("array job of " +
                                                         std::to_string(job.runs.size()) + " runs")
                          : job_id.status();
    }
    previous_job_id = *job_id;
    for (size_t task = 0; task < job.runs.size(); ++task) {
      Submission submission{job.runs[task]->spec.run_id,
                            job.is_array ? *job_id + "_" + std::to_string(task) : *job_id};
      if (callbacks.submitted) callbacks.submitted(submission);
      submissions.push_back(std::move(submission));
    }
  }
  return submissions;
}

}  // namespace scalestudy::sched
