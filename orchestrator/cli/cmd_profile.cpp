// `scalestudy profile STUDY.yaml --run ID --profile NAME`: one extra, profiled run.
#include <cstdio>
#include <iostream>
#include <utility>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/cli/submit_flow.hpp"
#include "orchestrator/sched/scheduler_help.hpp"
#include "orchestrator/submission/profiled_submit.hpp"
#include "orchestrator/submission/profiles_dir.hpp"
#include "orchestrator/submission/system_choice.hpp"

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
         sched::scheduler_choices("|") + "] [--results-dir DIR]\n" + kDescription;
}

// The outcome: the dry run's job script, or where the profiled run went; the exit code.
int print_profiled(const submission::ProfiledOutcome& outcome, bool dry_run) {
  if (outcome.failure) {
    std::fprintf(stderr, "scalestudy profile: %s\n", outcome.failure->status.message().c_str());
    return exit_code_of(outcome.failure->kind);
  }
  if (dry_run) {
    std::cout << "dry run: profiled run " << outcome.spec.run_id << " of "
              << outcome.measured.run_id << " (" << outcome.profile_name << ")\n  "
              << outcome.script_path << "\n";
    return kExitOk;
  }
  const campaign::ProfiledSubmission& submitted = outcome.submitted;
  std::cout << "profiled run " << submitted.run_id << " of " << outcome.measured.run_id << " ("
            << outcome.profile_name << "): " << (submitted.already_present ? "already " : "")
            << submitted.state << (submitted.job_id.empty() ? "" : ", job " + submitted.job_id)
            << "\n  " << submitted.out_dir << "\n";
  bool failed = outcome.ran_inside_submit && submitted.state != "COMPLETED";
  return failed ? kExitFailure : kExitOk;
}

int run_profile(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--run", "--profile", "--scheduler", "--results-dir",
                                   "--profiles-dir", submission::kSystemOption},
                                  {"--dry-run"}});
  if (auto done = parse_error_or_help("profile", parsed, profile_usage())) return *done;
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
  submission::ProfileRequest request;
  request.study = std::move(*location->study);
  request.run = *parsed->value("--run");
  request.profile = *parsed->value("--profile");
  request.profiles_dir = parsed->value_or("--profiles-dir", submission::default_profiles_dir());
  request.results_dir = results_dir;
  request.scheduler = parsed->value("--scheduler");
  request.dry_run = parsed->has("--dry-run");
  return print_profiled(submission::submit_profiled(request), request.dry_run);
}

}  // namespace

extern const Command kProfileCommand = {"profile", "submit one profiled run (nsys, ncu, torch)",
                                        profile_usage, run_profile};

}  // namespace scalestudy::cli
