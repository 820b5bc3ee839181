#include "orchestrator/submission/profiled_submit.hpp"

#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::submission {
namespace {

// The run whose id is `id` or starts with it; an error when none or several match.
Result<RunSpec> find_run(const Study& study, const std::string& id) {
  const RunSpec* found = nullptr;
  for (const RunSpec& run : study.runs) {
    if (run.run_id.compare(0, id.size(), id) != 0) continue;
    if (found != nullptr) return Status::error("run id prefix '" + id + "' is ambiguous");
    found = &run;
  }
  if (found == nullptr) return Status::error("study " + study.name + " has no run '" + id + "'");
  return *found;
}

// Records the study, then registers and launches the profiled run.
std::optional<SubmitFailure> submit_recorded(const ProfileRequest& request,
                                             sched::Scheduler& scheduler,
                                             const campaign::PrepareRun& prepare,
                                             ProfiledOutcome& outcome) {
  const Study& study = request.study;
  auto state =
      campaign::StudyState::open(campaign::study_database_path(request.results_dir, study.name));
  if (!state) return SubmitFailure{SubmitFailure::Kind::kUnavailable, state.status()};
  if (Status saved =
          state->save_study(campaign::make_submit_plan(study, request.results_dir).study);
      !saved) {
    return SubmitFailure{SubmitFailure::Kind::kUnavailable, saved};
  }
  const std::string out_dir =
      campaign::run_out_dir(request.results_dir, study.name, outcome.spec.run_id);
  auto submitted = campaign::submit_profiled_run(*state, outcome.spec, out_dir, scheduler, prepare);
  if (!submitted) return SubmitFailure{SubmitFailure::Kind::kRefused, submitted.status()};
  outcome.submitted = std::move(*submitted);
  outcome.ran_inside_submit = scheduler.runs_inside_submit();
  return std::nullopt;
}

}  // namespace

ProfiledOutcome submit_profiled(const ProfileRequest& request) {
  ProfiledOutcome outcome;
  const Study& study = request.study;
  auto measured = find_run(study, request.run);
  auto profile = load_profile(request.profiles_dir, request.profile);
  if (!measured || !profile) {
    outcome.failure = SubmitFailure{SubmitFailure::Kind::kRefused,
                                    !measured ? measured.status() : profile.status()};
    return outcome;
  }
  outcome.measured = *measured;
  outcome.spec = campaign::make_profiled_spec(*measured, *profile);
  outcome.profile_name = profile->name;
  const RunSpec& spec = outcome.spec;

  const std::string bin_dir = campaign::executable_dir();
  // A run on a named system goes to that system's scheduler, configured by its settings.
  const std::string scheduler_name = request.scheduler.value_or(
      spec.system.named ? spec.system.scheduler : sched::detect_scheduler());
  sched::SchedulerOptionValues settings;
  for (const auto& [key, value] : spec.system.scheduler_settings) {
    settings.emplace(sched::system_key_flag(key), value);
  }
  auto scheduler = sched::make_scheduler(scheduler_name, {bin_dir}, settings);
  if (!scheduler) {
    outcome.failure = SubmitFailure{SubmitFailure::Kind::kUnavailable, scheduler.status()};
    return outcome;
  }
  campaign::PrepareRun prepare =
      campaign::make_run_preparer({bin_dir, request.profiles_dir}, **scheduler, /*profiled=*/true);
  if (!request.dry_run) {
    outcome.failure = submit_recorded(request, **scheduler, prepare, outcome);
    return outcome;
  }
  const std::string out_dir = campaign::run_out_dir(request.results_dir, study.name, spec.run_id);
  const Status directory = common::make_owned_directory(out_dir, 0750);
  Result<sched::PreparedRun> prepared =
      directory ? prepare(spec, out_dir) : Result<sched::PreparedRun>(directory);
  if (!prepared) {
    outcome.failure = SubmitFailure{SubmitFailure::Kind::kRefused, prepared.status()};
    return outcome;
  }
  outcome.script_path = prepared->script_path;
  return outcome;
}

}  // namespace scalestudy::submission
