// What the two SLURM backends (sbatch CLI and slurmrestd) share: turning prepared runs into
// batch jobs (single runs, or job arrays over runs of one shape, see job_arrays.hpp) with
// the submit options each needs (--array, --dependency for ordered studies, extras such as
// --hold), and turning each job's id back into one Submission per run ("123" or "123_4"),
// and the command-line options both take. Submission goes in waves that stay under the
// site's submit limits (submit_limits.hpp): runs beyond the free slots, or refused with a
// submit limit, are deferred, not failed. The backend supplies only "submit this script
// with these options" and what it knows of the limits. Pure except for writing array
// wrapper scripts to BatchOptions::array_script_dir.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_options.hpp"
#include "orchestrator/sched/submit_limits.hpp"

namespace scalestudy::sched {

struct BatchOptions {
  bool use_job_arrays = true;      // runs of identical shape share one --array job
  int array_throttle = 0;          // the %N of --array; 0: no throttle
  bool ordered = false;            // each submission waits for the previous (afterany)
  bool packed = false;             // every run a job step of one allocation (packed_allocation.hpp)
  bool packed_concurrent = false;  // ... its steps side by side on disjoint nodes
  // Run id -> the median measured run time of earlier runs of its configuration, which
  // sizes packed allocations (packing_plan.hpp); runs not listed are sized by slurm.time.
  std::map<std::string, double> measured_run_s;
  std::vector<std::string> extra_sbatch_args;  // e.g. "--hold"
  std::string array_script_dir;                // where array wrapper scripts are written
  int command_timeout_ms = 120'000;
};

// --no-arrays, --ordered, --hold.
std::vector<SchedulerOption> batch_job_options();

// The `scheduler:` keys of a SLURM system file: where its jobs go (partition, account, ...).
std::vector<SchedulerOption> batch_system_keys();
BatchOptions parse_batch_options(const SchedulerContext& context,
                                 const SchedulerOptionValues& values);

struct BatchJob {
  std::string script_path;                  // a run's rendered script or an array wrapper
  std::vector<std::string> submit_options;  // "--array=0-5%2", "--hold", ...
  std::vector<const PreparedRun*> runs;     // one, or one per array task in task order
  bool is_array = false;
  bool is_packed = false;  // runs are job steps; each run's id: packed_run_job_id()
};

Result<std::vector<BatchJob>> plan_batch_jobs(const std::vector<PreparedRun>& runs,
                                              const BatchOptions& options);

// One submission wave: the jobs that fit the capacity now, and the runs that wait.
struct BatchWave {
  std::vector<BatchJob> jobs;
  std::vector<const PreparedRun*> waiting;
};
Result<BatchWave> plan_batch_wave(const std::vector<PreparedRun>& runs, const BatchOptions& options,
                                  const WaveCapacity& capacity);

// Submits `jobs` in order through `submit_one` (returns the job id), adding
// --dependency=afterany:<previous> when options.ordered, reporting every run as its job id
// is known. A refusal naming a submit limit defers that job's runs and every later one
// (callbacks.deferred) and is no error; a refused array first tries its runs one job each,
// as many as the limit takes. Stops at the first other error; what was submitted
// before it has been reported.
using SubmitOne = std::function<Result<std::string>(const BatchJob& job,
                                                    const std::vector<std::string>& options)>;
Result<std::vector<Submission>> submit_batch_jobs(const std::vector<BatchJob>& jobs,
                                                  const BatchOptions& options,
                                                  const SubmitOne& submit_one,
                                                  const SubmitCallbacks& callbacks);

// One wave of `runs` within `capacity` (plan_batch_wave): the runs that wait are deferred
// with capacity.limit as the reason, the jobs submitted through submit_batch_jobs.
Result<std::vector<Submission>> submit_wave(const std::vector<PreparedRun>& runs,
                                            const BatchOptions& options,
                                            const WaveCapacity& capacity,
                                            const SubmitOne& submit_one,
                                            const SubmitCallbacks& callbacks);

}  // namespace scalestudy::sched
