// The marks a packed run's folder holds for one allocation, "packed-<allocation>.<mark>":
// the only channel between the submitter, the allocation's wrapper script
// (packed_allocation.hpp) and a later reconciliation that does not go through the
// scheduler. Each mark is written as the thing happens, never at the wrapper's end, so a
// wrapper killed at its limit, preempted or requeued leaves them true:
//   recorded     the study database holds the run under this allocation (the submitter, or
//                any later submit or wait that finds the record); the wrapper starts the
//                run's step only then
//   dropped      the run is never to start here: not recorded, or cancelled (the wrapper
//                stops the step of a run cancelled after its start)
//   started      the wrapper is starting the run's step
//   finished     the step has ended; holds its exit status
//   not-reached  the wrapper will not start the run: its time is up, or no record came
// The last three are each execution's own: a job SLURM requeued runs again under the same
// id, and writes "packed-<allocation>.r<SLURM_RESTART_COUNT>.<mark>" (the first execution
// "packed-<allocation>.<mark>"), so that the marks of a run killed by the requeue are not
// read as those of the execution after it. Reading takes the newest execution that marked
// the run. Functions; the files are the state.
#pragma once

#include <optional>
#include <string>

#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

struct PackedRunMarks {
  bool started = false;
  bool not_reached = false;
  std::optional<int> finished_exit_code;  // set once the step has ended
  int execution = 0;                      // the allocation's execution read (SLURM's restart count)
};

// The marks of packed run `job_id` ("J+run") in its folder `out_dir`.
PackedRunMarks read_packed_run_marks(const std::string& out_dir, const std::string& job_id);

// Writes the recorded (dropped) mark of packed run `job_id`. Idempotent. An error names the
// mark's path and why it could not be written (a full disk, another owner's folder): the
// run's allocation would then wait for a mark that never comes, or run a cancelled run.
[[nodiscard]] Status mark_packed_run_recorded(const std::string& out_dir,
                                              const std::string& job_id);
[[nodiscard]] Status mark_packed_run_dropped(const std::string& out_dir, const std::string& job_id);

// The end of a packed run recorded under an allocation whose recorded mark could not be
// written (`error`): FAILED, never started there, saying why.
JobStatus packed_run_unmarked(const Status& error);

// Whether a requeued allocation's wrapper runs again a run whose step ended with
// `finished_exit_code` in an earlier execution: when a signal (143) or the checkpoint it
// asked for (75) ended it. The wrapper's runs_again says the same in bash.
bool packed_run_runs_again(int finished_exit_code);

// A packed run's polled status settled with its marks where accounting lists no step for
// it (status.never_started: its allocation ended before a step of that name): the finished
// mark gives its end (a requeue hides the earlier steps); a started one charges the
// allocation's end; a run never started costs no attempt when the wrapper said so or its
// allocation ran out of time, was preempted or lost a node, ends that may leave the wrapper
// no last second. Any other end (a scancel, a wrapper that could not start) is charged. A pending
// run whose finished mark says it will not run again ends there and then.
JobStatus settle_packed_run_status(JobStatus status, const PackedRunMarks& marks);

}  // namespace scalestudy::sched
