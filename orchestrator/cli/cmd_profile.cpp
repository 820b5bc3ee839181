// `scalestudy profile STUDY.yaml --run ID --profile NAME`: one extra, profiled run.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/campaign/profiled_submit.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/cli/profiles_dir.hpp"
#include "orchestrator/cli/scheduler_help.hpp"
#include "orchestrator/cli/system_choice.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::cli {
namespace {

const char kDescription[] =
    "                          [--profiles-dir DIR] [--dry-run]\n\n"
    "Submits one profiled twin of run ID (a unique prefix of it is enough): the same run\n"
    "with the profiler of profiles/NAME.yaml wrapped around every (or the profile's) ranks\n"
    "and the profile's parameters added (e.g. --profile-steps). Its run id is new, it is\n"
    "marked profiled in the study database and never counts in efficiency tables; the\n"
    "study's measured runs are left alone. Submitting the same profile again while it is in\n"
    "flight or done does nothing. Profiles: none, nsys, ncu, torch (a Chrome trace of the\n"
    "harness's NVTX ranges, no Nsight needed). Afterwards: scalestudy profile-report STUDY.\n\n"
    "options:\n"
    "  --run ID           the measured run to profile\n"
    "  --profile NAME     a file in the profiles directory, without .yaml\n"
    "  --scheduler S      as for submit (default: the run's system's, else detected)\n"
    "  --system ID[:VAR]  as for submit: the systems the study is planned on (repeatable)\n"
    "  --results-dir DIR  results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n"
    "  --profiles-dir DIR profile definitions (default: $SCALESTUDY_PROFILES_DIR, else the\n"
    "                     source tree's profiles/)\n"
    "  --dry-run          write the profiled run's job script and print it; submit nothing\n\n"
    "exit codes: 0 submitted (or already there); 1 no such run, bad profile, or the run\n"
    "failed; 2 wrong arguments; 3 the scheduler is unavailable.";

// The scheduler names come from the registry.
std::string profile_usage() {
  return "usage: scalestudy profile STUDY.yaml --run ID --profile NAME\n"
         "                          [--scheduler " +
         scheduler_choices("|") + "] [--results-dir DIR]\n" + kDescription;
}

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

// The measured run named by --run and its profiled twin; `profile` gets the profile. Prints
// why not.
std::optional<std::pair<RunSpec, RunSpec>> profiled_spec_or_explain(const Study& study,
                                                                    const ParsedArgs& parsed,
                                                                    ProfileDefinition& profile) {
  auto measured = find_run(study, *parsed.value("--run"));
  auto loaded = load_profile(parsed.value_or("--profiles-dir", default_profiles_dir()),
                             *parsed.value("--profile"));
  if (!measured || !loaded) {
    std::fprintf(stderr, "scalestudy profile: %s\n",
                 (!measured ? measured.status() : loaded.status()).message().c_str());
    return std::nullopt;
  }
  profile = std::move(*loaded);
  return std::make_pair(*measured, campaign::make_profiled_spec(*measured, profile));
}

// Records the study, then registers and launches the profiled run; the exit code.
int submit_and_print(const Study& study, const std::string& results_dir, const RunSpec& measured,
                     const RunSpec& spec, const std::string& profile_name,
                     sched::Scheduler& scheduler, const campaign::PrepareRun& prepare) {
  auto state = campaign::StudyState::open(campaign::study_database_path(results_dir, study.name));
  if (!state) {
    std::fprintf(stderr, "scalestudy profile: %s\n", state.status().message().c_str());
    return kExitEnvironment;
  }
  if (Status saved = state->save_study(campaign::make_submit_plan(study, results_dir).study);
      !saved) {
    std::fprintf(stderr, "scalestudy profile: %s\n", saved.message().c_str());
    return kExitEnvironment;
  }
  const std::string out_dir = campaign::run_out_dir(results_dir, study.name, spec.run_id);
  auto submitted = campaign::submit_profiled_run(*state, spec, out_dir, scheduler, prepare);
  if (!submitted) {
    std::fprintf(stderr, "scalestudy profile: %s\n", submitted.status().message().c_str());
    return kExitFailure;
  }
  std::cout << "profiled run " << submitted->run_id << " of " << measured.run_id << " ("
            << profile_name << "): " << (submitted->already_present ? "already " : "")
            << submitted->state << (submitted->job_id.empty() ? "" : ", job " + submitted->job_id)
            << "\n  " << submitted->out_dir << "\n";
  bool failed = scheduler.runs_inside_submit() && submitted->state != "COMPLETED";
  return failed ? kExitFailure : kExitOk;
}

int run_profile(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--run", "--profile", "--scheduler", "--results-dir",
                                   "--profiles-dir", kSystemOption},
                                  {"--dry-run"}});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy profile: %s\n%s\n", parsed.status().message().c_str(),
                 profile_usage().c_str());
    return kExitUsage;
  }
  if (parsed->has("--help")) {
    std::puts(profile_usage().c_str());
    return kExitOk;
  }
  if (parsed->positionals.size() != 1 || !parsed->value("--run") || !parsed->value("--profile")) {
    std::fprintf(stderr, "scalestudy profile: expected STUDY.yaml --run ID --profile NAME\n%s\n",
                 profile_usage().c_str());
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  int exit_code = kExitOk;
  auto location = locate_study_yaml_or_explain("profile", *parsed, results_dir, exit_code);
  if (!location) return exit_code;
  const Study& study = *location->study;
  ProfileDefinition profile;
  auto specs = profiled_spec_or_explain(study, *parsed, profile);
  if (!specs) return kExitFailure;
  const auto& [measured, spec] = *specs;

  const std::string bin_dir = campaign::executable_dir();
  // A run on a named system goes to that system's scheduler, configured by its settings.
  const std::string scheduler_name = parsed->value_or(
      "--scheduler", spec.system.named ? spec.system.scheduler : sched::detect_scheduler());
  sched::SchedulerOptionValues settings;
  for (const auto& [key, value] : spec.system.scheduler_settings) {
    settings.emplace(sched::system_key_flag(key), value);
  }
  auto scheduler = sched::make_scheduler(scheduler_name, {bin_dir}, settings);
  if (!scheduler) {
    std::fprintf(stderr, "scalestudy profile: %s\n", scheduler.status().message().c_str());
    return kExitEnvironment;
  }
  campaign::PrepareRun prepare = campaign::make_run_preparer(
      {bin_dir, parsed->value_or("--profiles-dir", default_profiles_dir())}, **scheduler,
      /*profiled=*/true);
  if (parsed->has("--dry-run")) {
    const std::string out_dir = campaign::run_out_dir(results_dir, study.name, spec.run_id);
    std::error_code error;
    std::filesystem::create_directories(out_dir, error);
    auto prepared = prepare(spec, out_dir);
    if (!prepared) {
      std::fprintf(stderr, "scalestudy profile: %s\n", prepared.status().message().c_str());
      return kExitFailure;
    }
    std::cout << "dry run: profiled run " << spec.run_id << " of " << measured.run_id << " ("
              << profile.name << ")\n  " << prepared->script_path << "\n";
    return kExitOk;
  }
  return submit_and_print(study, results_dir, measured, spec, profile.name, **scheduler, prepare);
}

}  // namespace

extern const Command kProfileCommand = {"profile", "submit one profiled run (nsys, ncu, torch)",
                                        profile_usage, run_profile};

}  // namespace scalestudy::cli
