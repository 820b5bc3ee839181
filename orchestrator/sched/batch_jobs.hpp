// What the two SLURM backends (sbatch CLI and slurmrestd) share: turning prepared runs into
// batch jobs (single runs, or job arrays over runs of one shape, see job_arrays.hpp) with
// the submit options each needs (--array, --dependency for ordered studies, extras such as
// --hold), and turning each job's id back into one Submission per run ("123" or "123_4").
// The backend supplies only "submit this script with these options". Pure except for
// writing array wrapper scripts to SchedulerOptions::array_script_dir.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

struct BatchJob {
  std::string script_path;                  // a run's rendered script or an array wrapper
  std::vector<std::string> submit_options;  // "--array=0-5%2", "--hold", ...
  std::vector<const PreparedRun*> runs;     // one, or one per array task in task order
  bool is_array = false;
};

Result<std::vector<BatchJob>> plan_batch_jobs(const std::vector<PreparedRun>& runs,
                                              const SchedulerOptions& options);

// Submits `jobs` in order through `submit_one` (returns the job id), adding
// --dependency=afterany:<previous> when options.ordered, reporting every run as its job id
// is known. Stops at the first error; what was submitted before it has been reported.
using SubmitOne = std::function<Result<std::string>(const BatchJob& job,
                                                    const std::vector<std::string>& options)>;
Result<std::vector<Submission>> submit_batch_jobs(const std::vector<BatchJob>& jobs,
                                                  const SchedulerOptions& options,
                                                  const SubmitOne& submit_one,
                                                  const SubmitCallbacks& callbacks);

}  // namespace scalestudy::sched
