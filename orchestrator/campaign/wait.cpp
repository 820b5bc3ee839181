#include "orchestrator/campaign/wait.hpp"

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "orchestrator/campaign/run_scheduler.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/common/interrupt_watch.hpp"
#include "orchestrator/sched/packed_allocation.hpp"
#include "orchestrator/sched/packed_run_marks.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::campaign {
Result<StudyProgress> study_progress(StudyState& state) {
  StudyProgress progress;
  auto study = state.study();
  if (!study) return study.status();
  if (*study) {
    progress.max_attempts = (*study)->max_attempts;
    progress.retry = (*study)->retry;
  }
  auto runs = state.runs();
  if (!runs) return runs.status();
  progress.runs = std::move(*runs);
  auto failed = common::read_study_failures(state.database());
  if (!failed) return failed.status();
  progress.failed_attempts = std::move(failed->attempts);
  progress.nodes = std::move(failed->nodes);
  for (const RunRecord& run : progress.runs) {
    ++progress.total;
    auto job_state = common::parse_job_state(run.state);
    if (run.state == "COMPLETED") {
      ++progress.completed;
    } else if (progress.exhausted(run)) {
      ++progress.failed;
    } else if (job_state && common::is_retryable(*job_state)) {
      ++progress.retryable;
    } else if (run.state == kStatePlanned) {
      ++progress.planned;
      if (run.reason.rfind(kReasonWaitingForSlot, 0) == 0 ||
          run.reason.rfind(kReasonNotReached, 0) == 0) {
        ++progress.waiting;
      }
    } else {
      ++progress.in_flight;
    }
  }
  return progress;
}

Result<WaitOutcome> wait_study(StudyState& state, const sched::SchedulerContext& context,
                               const WaitOptions& wait, sched::Scheduler* preferred) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  auto total_attempts = [](const StudyProgress& progress) {
    int sum = 0;
    for (const RunRecord& run : progress.runs) sum += run.attempts;
    return sum;
  };
  int attempts_at_last_resubmit = -1;
  bool tried_waiting_since_poll = false;
  auto interrupted = [&] { return wait.interrupts != nullptr && wait.interrupts->taken() > 0; };
  while (true) {
    if (Status reconciled = reconcile_study(state, context, preferred); !reconciled) {
      return reconciled;
    }
    auto progress = study_progress(state);
    if (!progress) return progress.status();
    if (wait.on_progress) wait.on_progress(*progress);
    // A resubmission that submitted nothing (e.g. a run whose script cannot be rendered)
    // would repeat forever: then those runs count as failed. Runs waiting for a submit slot
    // are tried once per poll: a slot frees when any job of the user ends.
    bool resubmit_helps = attempts_at_last_resubmit != total_attempts(*progress) ||
                          (progress->waiting > 0 && !tried_waiting_since_poll);
    if (interrupted()) return WaitOutcome::kInterrupted;
    if ((progress->retryable > 0 || progress->planned > 0) && wait.resubmit && resubmit_helps) {
      attempts_at_last_resubmit = total_attempts(*progress);
      tried_waiting_since_poll = true;
      if (Status resubmitted = wait.resubmit(); !resubmitted) return resubmitted;
      continue;  // the resubmission may have run to completion inside submit
    }
    tried_waiting_since_poll = false;
    const bool waves_left = progress->waiting > 0 && wait.resubmit;
    if (progress->in_flight == 0 && !waves_left) {
      return progress->completed == progress->total ? WaitOutcome::kAllCompleted
                                                    : WaitOutcome::kSomeFailed;
    }
    double waited_s = std::chrono::duration<double>(Clock::now() - started).count();
    if (wait.timeout_s > 0 && waited_s >= wait.timeout_s) return WaitOutcome::kTimedOut;
    double sleep_s = wait.poll_interval_s;
    if (wait.timeout_s > 0) sleep_s = std::min(sleep_s, wait.timeout_s - waited_s);
    if (wait.interrupts != nullptr) {
      if (wait.interrupts->wait_for(sleep_s)) return WaitOutcome::kInterrupted;
    } else {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, sleep_s)));
    }
  }
}

namespace {

// The packed allocations of the runs `stopped` in which no run is in flight any more.
Result<std::vector<std::string>> emptied_allocations(StudyState& state,
                                                     const std::vector<const RunRecord*>& stopped) {
  std::set<std::string> allocations;
  for (const RunRecord* run : stopped) {
    if (sched::is_packed_job_id(run->job_id)) {
      allocations.insert(sched::packed_allocation_id(run->job_id));
    }
  }
  if (allocations.empty()) return std::vector<std::string>{};
  auto runs = state.runs();
  if (!runs) return runs.status();
  for (const RunRecord& run : *runs) {
    if (is_in_flight(run.state) && sched::is_packed_job_id(run.job_id)) {
      allocations.erase(sched::packed_allocation_id(run.job_id));
    }
  }
  return std::vector<std::string>(allocations.begin(), allocations.end());
}

}  // namespace

Result<std::vector<std::string>> cancel_study(StudyState& state,
                                              const sched::SchedulerContext& context,
                                              const std::optional<std::string>& run_id) {
  auto runs = state.runs();
  if (!runs) return runs.status();
  std::map<std::string, std::vector<const RunRecord*>> by_scheduler;
  bool found = !run_id.has_value();
  for (const RunRecord& run : *runs) {
    if (run_id && run.run_id != *run_id) continue;
    found = true;
    if (is_in_flight(run.state) && !run.job_id.empty()) {
      by_scheduler[run_scheduler_key(run)].push_back(&run);
    }
  }
  if (!found) return Status::error("no run '" + *run_id + "' in this study");
  std::vector<std::string> cancelled, not_cancelled;
  for (const auto& [key, members] : by_scheduler) {
    auto scheduler = sched::make_scheduler(members.front()->scheduler, context,
                                           run_scheduler_values(*members.front()));
    if (!scheduler) return scheduler.status();
    // A packed run is marked dropped: its wrapper never starts it, or stops its step (a
    // step cannot be cancelled through every backend; its allocation's other runs go on).
    // One whose mark cannot be written runs on, and stays as it is, said below.
    std::vector<std::string> job_ids;
    std::vector<const RunRecord*> stopping;
    for (const RunRecord* run : members) {
      if (!sched::is_packed_job_id(run->job_id)) {
        job_ids.push_back(run->job_id);
      } else if (Status marked = sched::mark_packed_run_dropped(run->out_dir, run->job_id);
                 !marked) {
        not_cancelled.push_back("run " + run->run_id + " (" + marked.message() + ")");
        continue;
      }
      stopping.push_back(run);
    }
    if (Status stopped = (*scheduler)->cancel(job_ids); !stopped) return stopped;
    for (const RunRecord* run : stopping) {
      common::JobStatus status{common::JobState::kCancelled, std::nullopt,
                               "cancelled with scalestudy cancel"};
      if (Status recorded = state.record_job_status(run->run_id, run->job_id, status); !recorded) {
        return recorded;
      }
      cancelled.push_back(run->run_id);
    }
    // An allocation left with no run to run would still hold a submit slot, start, and
    // hold its nodes while it skips every run: cancelled as well.
    auto emptied = emptied_allocations(state, stopping);
    if (!emptied) return emptied.status();
    if (Status stopped = (*scheduler)->cancel(*emptied); !stopped) {
      return stopped.with_context("the packed allocations left with no run to run");
    }
  }
  if (!not_cancelled.empty()) {
    std::string message = "cancelled " + std::to_string(cancelled.size()) + " run(s);";
    for (const auto& cancelled_id : cancelled) message += " " + cancelled_id;
    message += "; not cancelled, still running or queued: ";
    for (size_t i = 0; i < not_cancelled.size(); ++i) {
      message += (i ? "; " : "") + not_cancelled[i];
    }
    return Status::error(message);
  }
  return cancelled;
}

}  // namespace scalestudy::campaign
