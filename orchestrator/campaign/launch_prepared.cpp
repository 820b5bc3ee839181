#include "orchestrator/campaign/launch_prepared.hpp"

#include <set>

namespace scalestudy::campaign {

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
  auto submitted = scheduler.submit(prepared, callbacks);
  for (const sched::PreparedRun& run : prepared) {
    if (submitted_ids.count(run.spec.run_id) != 0) continue;
    std::string why = submitted ? "not submitted" : submitted.status().message();
    state.release_claim(run.spec.run_id, claim_token, why);
    outcome.errors.push_back("run " + run.spec.run_id + ": " + why);
  }
  if (!record_error.is_ok()) return record_error;
  return outcome;
}

}  // namespace scalestudy::campaign
