// JobState: where a scheduler says a job is, in the vocabulary every backend maps onto
// (SLURM's names; the local executor and slurmrestd translate into them), plus the
// retry policy that `submit` applies to finished jobs. The study database stores these
// names (campaign/) and the reports read them (results/), hence common/. Value types; no
// shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace scalestudy::common {

enum class JobState {
  kPending,
  kRunning,
  kCompleted,
  kFailed,
  kTimeout,
  kPreempted,
  kNodeFail,
  kCancelled,
  kOutOfMemory,
};

// What a poll learns about one job. exit_code is the job's (or the first failing rank's)
// exit status where the scheduler reports one; reason is the scheduler's explanation
// ("TimeLimit", "rank 1 exited with code 3", ...), empty when it gave none. restarts counts
// the times the scheduler requeued the job under the same id (SLURM's restart_cnt after a
// node failure), 0 when it does not say.
// Where and when a job ran, as far as the scheduler tells (sacct); empty fields unknown.
// Times are the scheduler's own text ("2026-11-26T04:50:00", SLURM's local time).
struct JobPlacement {
  std::string job_step;   // "123.4": the job step a packed run ran as; empty for a whole job
  std::string node_list;  // "node[1-2]"
  std::string queued_at;  // the job's (the allocation's) submission
  std::string started_at, ended_at;  // of the job, or of the step of a packed run
  bool empty() const { return node_list.empty() && started_at.empty(); }
};

struct JobStatus {
  JobState state = JobState::kPending;
  std::optional<int> exit_code;
  std::string reason;
  int restarts = 0;
  JobPlacement placement{};
  // The job ended without this run ever starting (a packed allocation whose wrapper the
  // time limit stopped before the run's step, or that had no record of the run yet): no
  // execution, so no attempt is charged and the run waits for the next allocation.
  bool never_started = false;
};

// "PENDING", "OUT_OF_MEMORY", ...: the names stored in the study database.
const char* to_string(JobState state);
// The inverse of to_string; nullopt for any other text.
std::optional<JobState> parse_job_state(std::string_view name);

// A finished job: nothing will change its state any more.
bool is_terminal(JobState state);
// A finished job that `submit` resubmits while attempts remain: everything but COMPLETED.
// CANCELLED counts, so a run killed with scancel / `scalestudy cancel` reruns on the next
// submit (the acceptance); a study that should stop is left unsubmitted instead.
bool is_retryable(JobState state);

// What a checkpointed stop's reason says (75: exit_codes::kCheckpointed).
inline constexpr char kCheckpointedReason[] =
    "checkpointed (exit 75): the next attempt resumes from the run directory's checkpoint";

// A job that exited with exit_codes::kCheckpointed (75) stopped on request — a time limit's
// early SIGTERM, preemption, scancel --signal — after writing a checkpoint that its next
// attempt resumes from: PREEMPTED, with a reason saying so ("preempted; " first where the
// scheduler itself preempted it), whatever state the scheduler gave it (FAILED, for a
// non-zero exit). Any other status is returned unchanged.
JobStatus classify_checkpointed(JobStatus status);

// Whether a status's reason (or a failure's evidence) names a checkpointed stop.
bool resumes_from_checkpoint(const std::string& reason);

}  // namespace scalestudy::common
