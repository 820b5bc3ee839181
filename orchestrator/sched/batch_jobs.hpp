// What the two SLURM backends (sbatch CLI and slurmrestd) share: turning prepared runs into
// batch jobs (single runs, or job arrays over runs of one shape, see job_arrays.hpp) with
// the submit options each needs (--array, --dependency for ordered studies, extras such as
// --hold), and turning each job's id back into one Submission per run ("123" or "123_4"),
// and the command-line options both take. The backend supplies only "submit this script
// with these options". Pure except for writing array wrapper scripts to
// BatchOptions::array_script_dir.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_options.hpp"

namespace scalestudy::sched {

struct BatchOptions {
  bool use_job_arrays = true;                  // runs of identical shape share one --array job
  int array_throttle = 0;                      // the %N of --array; 0: no throttle
  bool ordered = false;                        // each submission waits for the previous (afterany)
  std::vector<std::string> extra_sbatch_args;  // e.g. "--hold"
  std::string array_script_dir;                // where array wrapper scripts are written
  int command_timeout_ms = 120'000;
};

// --no-arrays, --ordered, --hold.
std::vector<SchedulerOption> batch_job_options();
BatchOptions parse_batch_options(const SchedulerContext& context,
                                 const SchedulerOptionValues& values);

struct BatchJob {
  std::string script_path;                  // a run's rendered script or an array wrapper
  std::vector<std::string> submit_options;  // "--array=0-5%2", "--hold", ...
  std::vector<const PreparedRun*> runs;     // one, or one per array task in task order
  bool is_array = false;
};

Result<std::vector<BatchJob>> plan_batch_jobs(const std::vector<PreparedRun>& runs,
                                              const BatchOptions& options);

// Submits `jobs` in order through `submit_one` (returns the job id), adding
// --dependency=afterany:<previous> when options.ordered, reporting every run as its job id
// is known. Stops at the first error; what was submitted before it has been reported.
using SubmitOne = std::function<Result<std::string>(const BatchJob& job,
                                                    const std::vector<std::string>& options)>;
Result<std::vector<Submission>> submit_batch_jobs(const std::vector<BatchJob>& jobs,
                                                  const BatchOptions& options,
                                                  const SubmitOne& submit_one,
                                                  const SubmitCallbacks& callbacks);

}  // namespace scalestudy::sched
