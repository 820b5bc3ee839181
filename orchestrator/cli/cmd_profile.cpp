// `scalestudy profile STUDY.yaml --run ID --profile NAME`: one extra, profiled run.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/profiling/profiled_run.hpp"

namespace scalestudy::cli {
namespace {

const char kUsage[] =
    "usage: scalestudy profile STUDY.yaml --run ID --profile NAME\n"
    "                          [--scheduler local|slurm|slurmrest] [--results-dir DIR]\n"
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
    "  --scheduler S      as for submit (default: detected)\n"
    "  --results-dir DIR  results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n"
    "  --profiles-dir DIR profile definitions (default: $SCALESTUDY_PROFILES_DIR, else the\n"
    "                     source tree's profiles/)\n"
    "  --dry-run          write the profiled run's job script and print it; submit nothing\n\n"
    "exit codes: 0 submitted (or already there); 1 no such run, bad profile, or the run\n"
    "failed; 2 wrong arguments; 3 the scheduler is unavailable.";

std::string default_profiles_dir() {
  if (const char* dir = std::getenv("SCALESTUDY_PROFILES_DIR"); dir && *dir) return dir;
  return SCALESTUDY_PROFILES_DIR;
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

int run_profile(const std::vector<std::string>& args) {
  auto parsed = parse_args(
      args,
      {{"--run", "--profile", "--scheduler", "--results-dir", "--profiles-dir"}, {"--dry-run"}});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy profile: %s\n%s\n", parsed.status().message().c_str(), kUsage);
    return kExitUsage;
  }
  if (parsed->has("--help")) {
    std::puts(kUsage);
    return kExitOk;
  }
  if (parsed->positionals.size() != 1 || !parsed->value("--run") || !parsed->value("--profile")) {
    std::fprintf(stderr, "scalestudy profile: expected STUDY.yaml --run ID --profile NAME\n%s\n",
                 kUsage);
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  auto location = campaign::locate_study(parsed->positionals[0], results_dir);
  if (!location || !location->study) {
    std::fprintf(stderr, "%s\n",
                 location ? "scalestudy profile: STUDY must be a study YAML file"
                          : location.status().message().c_str());
    return location ? kExitUsage : kExitFailure;
  }
  const Study& study = *location->study;
  auto measured = find_run(study, *parsed->value("--run"));
  auto profile = profiling::load_profile_definition(
      parsed->value_or("--profiles-dir", default_profiles_dir()), *parsed->value("--profile"));
  if (!measured || !profile) {
    std::fprintf(stderr, "scalestudy profile: %s\n",
                 (!measured ? measured.status() : profile.status()).message().c_str());
    return kExitFailure;
  }
  const RunSpec spec = profiling::make_profiled_spec(*measured, *profile);
  const std::string out_dir = campaign::run_out_dir(results_dir, study.name, spec.run_id);
  const std::string bin_dir = campaign::executable_dir();
  campaign::PrepareRun prepare = profiling::make_profiled_preparer(
      campaign::make_run_preparer(
          {bin_dir, parsed->value_or("--profiles-dir", default_profiles_dir())}),
      *profile);

  if (parsed->has("--dry-run")) {
    std::error_code error;
    std::filesystem::create_directories(out_dir, error);
    auto prepared = prepare(spec, out_dir);
    if (!prepared) {
      std::fprintf(stderr, "scalestudy profile: %s\n", prepared.status().message().c_str());
      return kExitFailure;
    }
    std::cout << "dry run: profiled run " << spec.run_id << " of " << measured->run_id << " ("
              << profile->name << ")\n  " << prepared->script_path << "\n";
    return kExitOk;
  }

  sched::SchedulerOptions options;
  options.max_parallel_runs = 1;
  const std::string launcher = bin_dir + "/scalestudy-launch";
  if (std::filesystem::exists(launcher)) options.launcher_path = launcher;
  options.use_job_arrays = false;
  const std::string scheduler_name = parsed->value_or("--scheduler", sched::detect_scheduler());
  auto scheduler = sched::make_scheduler(scheduler_name, options);
  if (!scheduler) {
    std::fprintf(stderr, "scalestudy profile: %s\n", scheduler.status().message().c_str());
    return kExitEnvironment;
  }
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
  auto submitted = profiling::submit_profiled_run(*state, spec, out_dir, **scheduler, prepare);
  if (!submitted) {
    std::fprintf(stderr, "scalestudy profile: %s\n", submitted.status().message().c_str());
    return kExitFailure;
  }
  std::cout << "profiled run " << submitted->run_id << " of " << measured->run_id << " ("
            << profile->name << "): " << (submitted->already_present ? "already " : "")
            << submitted->state << (submitted->job_id.empty() ? "" : ", job " + submitted->job_id)
            << "\n  " << submitted->out_dir << "\n";
  bool failed = (*scheduler)->runs_inside_submit() && submitted->state != "COMPLETED";
  return failed ? kExitFailure : kExitOk;
}

}  // namespace

extern const Command kProfileCommand = {"profile", "submit one profiled run (nsys, ncu, torch)",
                                        kUsage, run_profile};

}  // namespace scalestudy::cli
