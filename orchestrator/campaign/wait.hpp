// Following a submitted study: its progress from the study database (after reconciling
// with the schedulers), waiting until every run has finished for good (`scalestudy wait`,
// and the second half of `run`), and cancelling runs in flight. Functions; callers own
// the StudyState and Scheduler.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_options.hpp"

namespace scalestudy::campaign {

struct StudyProgress {
  int max_attempts = 3;
  RetryPolicy retry;
  int total = 0;
  int completed = 0;
  int failed = 0;     // finished without success, no attempts left
  int retryable = 0;  // finished without success, attempts left (a submit reruns them)
  int in_flight = 0;  // submitted, pending or running (or claimed by a submit)
  int planned = 0;    // never submitted
  // Of the planned: held back by a submit limit (kReasonWaitingForSlot), or not reached in
  // a packed allocation (kReasonNotReached); the next wave submits them.
  int waiting = 0;
  std::vector<RunRecord> runs;
  // Every attempt that failed, by run and attempt; the nodes they failed on.
  std::vector<common::FailedAttempt> failed_attempts;
  std::vector<common::NodeFailures> nodes;

  // A run that failed and is retried no more (is_exhausted under the study's policy).
  bool exhausted(const RunRecord& run) const { return is_exhausted(run, max_attempts, retry); }

  bool finished() const { return in_flight == 0 && planned == 0 && retryable == 0; }
};

Result<StudyProgress> study_progress(StudyState& state);

struct WaitOptions {
  double timeout_s = 0;  // 0: no limit
  // Ctrl-C between polls ends the wait (kInterrupted); runs in flight go on. May be null.
  common::InterruptWatch* interrupts = nullptr;
  double poll_interval_s = 10;
  // Called when runs failed with attempts left (e.g. submit_study again, as `run` does),
  // and after each poll while runs wait for a submit slot (the next wave). Without it such
  // runs count as failed for this wait.
  std::function<Status()> resubmit;
  std::function<void(const StudyProgress&)> on_progress;  // after every poll
};

enum class WaitOutcome { kAllCompleted, kSomeFailed, kTimedOut, kInterrupted };

// Polls (see reconcile_study; `preferred` may be null) every poll_interval_s until no run is
// in flight, resubmitting retryable runs through wait.resubmit when given; with it, runs
// waiting for a submit slot keep the wait going (their slots may be held by other jobs).

Result<WaitOutcome> wait_study(StudyState& state, const sched::SchedulerContext& context,
                               const WaitOptions& wait, sched::Scheduler* preferred = nullptr);

// Cancels every run in flight (or only `run_id`) through its scheduler and records it as
// CANCELLED; a later poll may still say it completed first. Returns the cancelled run ids;
// an error, after cancelling the others, names each packed run whose dropped mark could not
// be written: its step runs on, and its state stays as it was. A packed allocation left
// with no run in flight is cancelled too.
Result<std::vector<std::string>> cancel_study(StudyState& state,
                                              const sched::SchedulerContext& context,
                                              const std::optional<std::string>& run_id);

}  // namespace scalestudy::campaign
