// A packed sweep (`allocation: packed`, `submit --packed`): batch jobs sized by
// packing_plan.hpp, each of whose wrapper script starts each of its runs' own rendered
// scripts as a job step on nodes of its own (srun --nodes/--ntasks/--nodelist --exclusive,
// named after the run), in an order shuffled with a recorded seed and on nodes rotated
// through the allocation, so neither time of day nor a node's speed lines up with a point
// of the sweep. The serial policy runs one step at a time; the concurrent one is a list
// scheduler: largest runs first, each started as soon as enough hosts are free, freed hosts
// refilled as steps end. A failing step ends only its run; a run's step starts only once it
// is recorded (report_packed_runs), or not here when no record comes within a bound; each
// step is marked started and finished as it happens (packed_run_marks.hpp), and a requeued
// job does not run again what finished. Near the time limit (the wrapper's own alarm, or USR1
// sent to the batch shell, scancel -b -s USR1) the running steps get SIGTERM (they
// checkpoint and exit 75) and no further step starts; the runs left go into the next
// allocation at no attempt's cost. Each run is known by "<allocation id>+<run id>"; its
// state is its step's in sacct. Shared by the slurm and slurmrest backends; pure except for
// writing the wrapper script and the marks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/batch_jobs.hpp"
#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

// Writes the wrapper script for `runs` into `script_dir` (empty: beside the runs' folders).
// `concurrent`: the concurrent policy (steps side by side), else the serial one;
// `time_minutes`: the allocation's time limit (packing_plan.hpp), 0 for the partition's default.
Result<BatchJob> write_packed_job(const std::vector<const PreparedRun*>& runs,
                                  const std::string& script_dir, bool concurrent, int time_minutes);

// The wrapper script itself: `runs` in the order they are placed, the allocation's
// directives, the policy, its time limit (0: the partition's default), and how long before
// the job's end it stops the running steps (USR1 to itself).
std::string packed_wrapper_script(const std::vector<const PreparedRun*>& runs,
                                  const std::vector<std::string>& directives, uint64_t seed,
                                  bool concurrent, int time_limit_s, int stop_lead_s,
                                  const std::string& job_name, const std::string& output_pattern);

// The order the runs of a packed job are placed in: `runs` shuffled with `seed`; with
// `largest_first`, then stably sorted by node count, largest first.
std::vector<const PreparedRun*> shuffled_runs(std::vector<const PreparedRun*> runs, uint64_t seed,
                                              bool largest_first = false);

// Each run of a packed job just submitted as `allocation_id`: recorded first
// (callbacks.launching), then marked recorded in its folder, then reported
// (callbacks.submitted); a run that could not be recorded is marked dropped. The wrapper
// starts a run's step only once it is marked, and leaves a run dropped or recorded under a
// later job (a later submit took it after its submitter died before recording it here), so
// no run executes that the study database does not know, and a stopped submitter only
// delays its runs (a dead one delays them by at most $SCALESTUDY_PACKED_RECORD_WAIT_S, 300
// s: then they are left unstarted, for a later allocation).
void report_packed_runs(const BatchJob& job, const std::string& allocation_id,
                        const SubmitCallbacks& callbacks, std::vector<Submission>& submissions);

// "123+<run id>", and its parts; is_packed_job_id tells such ids from "123" and "123_4".
std::string packed_run_job_id(const std::string& allocation_id, const std::string& run_id);
bool is_packed_job_id(const std::string& job_id);
std::string packed_allocation_id(const std::string& job_id);

// What the accounting database says of one packed allocation and its steps (sacct, or
// slurmrestd's /slurmdb/…/job): states as SLURM names them, times as the scheduler gives
// them, "" where there are none yet.
struct StepRecord {
  std::string step_id;  // "123.4"
  std::string name;     // the run id (srun --job-name)
  std::string state;
  std::optional<int> exit_code;
  std::string node_list, started_at, ended_at;
};
struct AllocationRecord {
  std::string state, queued_at;
  std::optional<int> exit_code;  // the allocation's (sacct 0:53 reads 181: it never set up)
  std::vector<StepRecord> steps;
};

// The allocations of packed `job_ids`, as a comma-separated list for sacct or slurmrestd.
std::vector<std::string> packed_allocation_ids(const std::vector<std::string>& job_ids);
// The sacct call whose output parse_packed_sacct reads: the allocations and their steps.
std::vector<std::string> packed_sacct_argv(const std::vector<std::string>& job_ids);
std::map<std::string, AllocationRecord> parse_packed_sacct(const std::string& sacct_output);

// The state of each packed run: its step's state, exit code and placement (NODE_FAIL for a
// step cancelled by its allocation's node failure); PENDING while its turn has not come, or
// while its requeued allocation still lists the step the requeue ended; for a run whose
// allocation ended before it started, that ending (TIMEOUT, ...) with a reason saying so.
// Ids of allocations not (yet) known are left out.
std::map<std::string, JobStatus> packed_run_states(
    const std::map<std::string, AllocationRecord>& allocations,
    const std::vector<std::string>& job_ids);

}  // namespace scalestudy::sched
