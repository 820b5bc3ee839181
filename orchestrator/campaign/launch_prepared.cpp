#include "orchestrator/campaign/launch_prepared.hpp"

#include <map>
#include <set>

namespace scalestudy::campaign {
namespace {

// "queued 2 of 10 runs (MaxSubmitJobs=2 for user root); 8 wait for a free slot; ..."
std::string wave_summary(const LaunchOutcome& outcome, size_t prepared, const std::string& limit) {
  return "queued " + std::to_string(outcome.submitted.size()) + " of " + std::to_string(prepared) +
         " runs (" + limit + "); " + std::to_string(outcome.waiting.size()) +
         " wait for a free slot; `scalestudy wait` submits them as jobs finish";
}

}  // namespace

Result<LaunchOutcome> launch_prepared(StudyState& state, sched::Scheduler& scheduler,
                                      const std::vector<sched::PreparedRun>& prepared,
                                      const std::string& claim_token, const LaunchHooks& hooks) {
  auto log = [&](const std::string& line) {
    if (hooks.log) hooks.log(line);
  };
  auto reached = [&](const char* point) {
    if (hooks.faults != nullptr) hooks.faults->reached(point);
  };
  LaunchOutcome outcome;
  log("submitting " + std::to_string(prepared.size()) + " run(s) with " + scheduler.name());
  Status record_error;
  std::vector<sched::Submission> unrecorded;
  std::set<std::string> submitted_ids;
  std::set<std::string> recorded_before_launch;
  sched::SubmitCallbacks callbacks;
  callbacks.launching = [&](const sched::Submission& submission) {
    Status recorded = state.record_submission(submission, scheduler.name(), claim_token);
    if (recorded) {
      recorded_before_launch.insert(submission.run_id);
      reached("submit.recorded");
    }
    return recorded;
  };
  callbacks.submitted = [&](const sched::Submission& submission) {
    submitted_ids.insert(submission.run_id);
    outcome.submitted.push_back(submission);
    if (recorded_before_launch.count(submission.run_id) == 0) {
      Status recorded = state.record_submission(submission, scheduler.name(), claim_token);
      if (!recorded && record_error.is_ok()) record_error = recorded;
      if (recorded) reached("submit.recorded");
      if (!recorded) unrecorded.push_back(submission);
    }
    log("  " + submission.run_id + " -> " + submission.job_id);
    reached("submit.launched");
  };
  callbacks.finished = [&](const sched::Submission& submission, const common::JobStatus& status) {
    Status recorded = state.record_job_status(submission.run_id, submission.job_id, status);
    if (!recorded && record_error.is_ok()) record_error = recorded;
    log("  " + submission.run_id + " " + to_string(status.state) +
        (status.reason.empty() ? "" : ": " + status.reason));
    reached("submit.finished");
  };
  std::map<std::string, std::string> limit_of_deferred;
  callbacks.deferred = [&](const std::string& run_id, const std::string& limit) {
    limit_of_deferred.emplace(run_id, limit);
  };
  auto submitted = scheduler.submit(prepared, callbacks);
  // A job the study database does not hold (its claim lost to another submitter, who
  // submits the run again) would run unaccounted beside that one: cancelled.
  for (const sched::Submission& lost : unrecorded) {
    Status cancelled = scheduler.cancel({lost.job_id});
    outcome.errors.push_back(
        "run " + lost.run_id + ": job " + lost.job_id + " could not be recorded, " +
        (cancelled ? "so it was cancelled" : "and could not be cancelled: " + cancelled.message()));
  }
  std::string first_limit;
  for (const sched::PreparedRun& run : prepared) {
    if (submitted_ids.count(run.spec.run_id) != 0) continue;
    auto deferred = limit_of_deferred.find(run.spec.run_id);
    if (deferred != limit_of_deferred.end()) {
      if (first_limit.empty()) first_limit = deferred->second;
      state.release_claim(run.spec.run_id, claim_token,
                          std::string(kReasonWaitingForSlot) + " (" + deferred->second + ")",
                          scheduler.name());
      outcome.waiting.push_back(run.spec.run_id);
      continue;
    }
    std::string why = submitted ? "not submitted" : submitted.status().message();
    state.release_claim(run.spec.run_id, claim_token, why);
    outcome.errors.push_back("run " + run.spec.run_id + ": " + why);
  }
  // A submit that failed after starting every run (Ctrl-C while they ran) has no unsubmitted
  // run to carry its error.
  if (!submitted && submitted_ids.size() == prepared.size()) {
    outcome.errors.push_back(submitted.status().message());
  }
  if (!outcome.waiting.empty()) log(wave_summary(outcome, prepared.size(), first_limit));
  if (!record_error.is_ok()) {
    std::string errors;
    for (const std::string& error : outcome.errors) errors += "; " + error;
    return Status::error(record_error.message() + errors);
  }
  return outcome;
}

}  // namespace scalestudy::campaign
