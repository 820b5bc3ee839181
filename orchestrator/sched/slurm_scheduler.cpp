#include "orchestrator/sched/slurm_scheduler.hpp"

#include <pwd.h>
#include <unistd.h>

#include <set>

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sched/batch_jobs.hpp"
#include "orchestrator/sched/job_environment.hpp"
#include "orchestrator/sched/job_script_preparation.hpp"
#include "orchestrator/sched/packed_allocation.hpp"
#include "orchestrator/sched/slurm_states.hpp"

namespace scalestudy::sched {
namespace {

std::string join(const std::set<std::string>& items) {
  std::string joined;
  for (const auto& item : items) joined += (joined.empty() ? "" : ",") + item;
  return joined;
}

}  // namespace

SchedulerEntry slurm_scheduler_entry() {
  SchedulerEntry entry;
  entry.name = "slurm";
  entry.family = "slurm";
  entry.options = batch_job_options();
  entry.system_keys = batch_system_keys();
  entry.cancels_with = "scancel";
  entry.detect_order = 1;
  entry.detect_when = "sbatch is on PATH and squeue answers";
  entry.detect = []() {
    if (!common::find_on_path("sbatch")) return false;
    auto answer = common::run_process({{"squeue", "-h", "-o", "%i", "--me"}, {}, 10'000});
    return answer && answer->succeeded();
  };
  entry.make = [](const SchedulerContext& context,
                  const SchedulerOptionValues& values) -> Result<std::unique_ptr<Scheduler>> {
    return std::unique_ptr<Scheduler>(new SlurmScheduler(parse_batch_options(context, values)));
  };
  return entry;
}

Result<PreparedRun> SlurmScheduler::prepare(const RunSpec& spec,
                                            const RunPreparation& preparation) const {
  return prepare_job_script(spec, preparation);
}

// The command's stdout; with tolerate_failure a failing command yields "" (squeue exits 1
// when none of the ids is known any more).
Result<std::string> SlurmScheduler::run_command(
    const std::vector<std::string>& argv, bool tolerate_failure,
    const std::map<std::string, std::string>& environment) {
  ++commands_run_;
  auto result = common::run_process({argv, environment, options_.command_timeout_ms});
  if (!result) return result.status();
  if (!result->succeeded()) {
    if (tolerate_failure && !result->timed_out) return std::string();
    return common::command_error(argv, *result);
  }
  return std::move(result->stdout_text);
}

Status SlurmScheduler::check_reachable() {
  if (common::find_on_path("sbatch")) return Status::ok();
  return Status::error(
      "slurm: sbatch is not on PATH (install SLURM's client commands or choose "
      "--scheduler local)");
}

Result<std::vector<Submission>> SlurmScheduler::submit(const std::vector<PreparedRun>& runs,
                                                       const SubmitCallbacks& callbacks) {
  const passwd* user = getpwuid(geteuid());
  const WaveCapacity capacity = read_wave_capacity(
      [&](const std::vector<std::string>& argv) { return run_command(argv, false); },
      user != nullptr ? user->pw_name : "");
  const Environment submitter = current_environment();
  auto sbatch = [&](const BatchJob& job,
                    const std::vector<std::string>& submit_options) -> Result<std::string> {
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    argv.insert(argv.end(), submit_options.begin(), submit_options.end());
    argv.push_back(job.script_path);
    // As sbatch's --export, kept off the command line and out of its error messages.
    auto output =
        run_command(argv, false, {{"SBATCH_EXPORT", sbatch_export_list(job.runs, submitter)}});
    if (!output) return output.status();
    std::string job_id = output->substr(0, output->find_first_of(";\n"));
    if (job_id.empty() || job_id.find_first_not_of("0123456789") != std::string::npos) {
      return Status::error("`sbatch --parsable` printed no job id: " + *output);
    }
    return job_id;
  };
  return submit_wave(runs, options_, capacity, sbatch, callbacks);
}

Result<std::map<std::string, JobStatus>> SlurmScheduler::poll(
    const std::vector<std::string>& all_job_ids) {
  std::map<std::string, JobStatus> states;
  std::vector<std::string> job_ids, packed_ids;
  for (const auto& job_id : all_job_ids) {
    (is_packed_job_id(job_id) ? packed_ids : job_ids).push_back(job_id);
  }
  if (!packed_ids.empty()) {  // runs as job steps: sacct knows their steps
    auto steps = run_command(packed_sacct_argv(packed_ids), false);
    if (!steps) return steps.status();
    states = packed_run_states(parse_packed_sacct(*steps), packed_ids);
  }
  if (job_ids.empty()) return states;
  std::set<std::string> base_ids;
  for (const auto& job_id : job_ids) base_ids.insert(base_job_id(job_id));

  auto queued = run_command(
      {"squeue", "-h", "-r", "-t", "all", "-o", "%i|%T|%r", "-j", join(base_ids)}, true);
  if (!queued) return queued.status();
  auto in_queue = parse_squeue(*queued);
  bool need_accounting = false;
  for (const auto& job_id : job_ids) {
    auto found = in_queue.find(job_id);
    if (found == in_queue.end() || is_terminal(found->second.state)) need_accounting = true;
  }
  std::map<std::string, JobStatus> accounted;
  if (need_accounting) {
    auto accounting =
        run_command({"sacct", "-X", "-n", "--parsable2", "-j", join(base_ids),
                     "--format=JobID,State,ExitCode,Reason,NodeList,Submit,Start,End"},
                    false);
    if (!accounting) return accounting.status();
    accounted = parse_sacct(*accounting);
  }
  for (const auto& job_id : job_ids) {
    auto queue_entry = in_queue.find(job_id);
    auto account_entry = accounted.find(job_id);
    bool queue_live = queue_entry != in_queue.end() && !is_terminal(queue_entry->second.state);
    if (queue_live) {
      states[job_id] = queue_entry->second;
    } else if (account_entry != accounted.end() && is_terminal(account_entry->second.state)) {
      JobStatus status = account_entry->second;
      // sacct rarely says why; squeue's reason (TimeLimit, NonZeroExitCode) does.
      if (status.reason.empty() && queue_entry != in_queue.end()) {
        status.reason = queue_entry->second.reason;
      }
      states[job_id] = status;
    } else if (queue_entry != in_queue.end()) {
      states[job_id] = queue_entry->second;  // finished; accounting has not caught up
    } else if (account_entry != accounted.end()) {
      states[job_id] = account_entry->second;
    }
  }
  return states;
}

Status SlurmScheduler::cancel(const std::vector<std::string>& job_ids) {
  if (job_ids.empty()) return Status::ok();
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), job_ids.begin(), job_ids.end());
  return run_command(argv, false).status();
}

}  // namespace scalestudy::sched
