#include "orchestrator/submission/wave_sessions.hpp"

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/submission/recorded_choices.hpp"
#include "orchestrator/submission/system_choice.hpp"

namespace scalestudy::submission {

SubmitSetup make_wave_sessions(campaign::StudyState& state, const std::string& results_dir,
                               std::function<void(const std::string& line)> log) {
  auto fail = [](const std::string& message) {
    SubmitSetup failed;
    failed.failure = SubmitFailure{SubmitFailure::Kind::kRefused, Status::error(message)};
    return failed;
  };
  auto study = state.study();
  if (!study || !*study) return fail("the study database records no study");
  // As the last submit was told (its options hold --scheduler when it was given); a
  // database from before choices were recorded: the scheduler its runs went to. A study
  // on named systems leaves each system its own scheduler; otherwise the scheduler the
  // last submit used is named, so a detection that answers differently now changes nothing.
  auto choices = state.submit_choices();
  if (!choices) return fail(choices.status().message());
  std::vector<std::string> options;
  std::string last_scheduler;
  if (*choices) {
    options = (*choices)->options;
    last_scheduler = (*choices)->scheduler;
  } else {
    auto runs = state.runs();
    if (!runs) return fail(runs.status().message());
    last_scheduler = sched::detect_scheduler();
    for (const campaign::RunRecord& run : *runs) {
      if (!run.scheduler.empty()) last_scheduler = run.scheduler;
    }
  }
  auto request = request_from_recorded_choices(options);
  if (!request) return fail(request.status().message());
  auto location =
      campaign::locate_study((*study)->source_path, results_dir, system_choice(request->systems));
  if (!location || !location->study) {
    return fail("runs wait for a later wave, but the study YAML " + (*study)->source_path +
                " cannot be loaded to submit them" +
                (location ? "" : ": " + location.status().message()));
  }
  if (!request->scheduler && location->study->systems.empty()) request->scheduler = last_scheduler;
  request->study = std::move(*location->study);
  request->results_dir = results_dir;
  request->planned_only = true;
  request->log = std::move(log);
  return make_submit_sessions(*request);
}

}  // namespace scalestudy::submission
