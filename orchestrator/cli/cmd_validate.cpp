// `scalestudy validate FILE...`: check study files (for CI pipelines and editors).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/param_check_report.hpp"
#include "orchestrator/study/study.hpp"
#include "orchestrator/submission/system_choice.hpp"
#include "orchestrator/submission/workload_param_check.hpp"

namespace scalestudy::cli {
namespace {

const char kValidateUsage[] =
    "usage: scalestudy validate STUDY.yaml... [--system ID[:VARIANT]]...\n\n"
    "Reads, validates and expands each study file, as `plan` would, and prints every error\n"
    "as file:line:column: field 'name': message, including workload parameters the\n"
    "workload's own flag description (--describe-flags json) refuses and runs over a\n"
    "system's limits. Nothing is written or submitted.\n\n"
    "  --system ID[:VARIANT]  plan on this system instead of the study's `systems:`\n"
    "                         (repeatable; see `scalestudy systems list`)\n\n"
    "exit codes: 0 every study is valid; 1 at least one is not; 2 wrong arguments;\n"
    "3 a file cannot be read.";

int run_validate(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{submission::kSystemOption}, {}});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy validate: %s\n", parsed.status().message().c_str());
    return kExitUsage;
  }
  if (parsed->positionals.empty()) {
    std::fprintf(stderr, "scalestudy validate: expected at least one study file\n%s\n",
                 kValidateUsage);
    return kExitUsage;
  }
  int exit_code = kExitOk;
  for (const auto& path : parsed->positionals) {
    if (!std::filesystem::is_regular_file(path)) {
      std::fprintf(stderr, "%s: no such study file\n", path.c_str());
      exit_code = kExitEnvironment;
      continue;
    }
    Result<Study> study =
        load_study(path, submission::system_choice(parsed->values(submission::kSystemOption)));
    if (study && !report_workload_param_check(
                     "validate",
                     submission::check_study_workload_params(*study, campaign::executable_dir()))) {
      if (exit_code == kExitOk) exit_code = kExitFailure;
    } else if (study) {
      std::printf("%s: ok (%zu runs)\n", path.c_str(), study->runs.size());
    } else {
      std::fprintf(stderr, "%s\n", study.status().message().c_str());
      if (exit_code == kExitOk) exit_code = kExitFailure;
    }
  }
  return exit_code;
}

}  // namespace

extern const Command kValidateCommand = {"validate", "check study files and report every error",
                                         fixed_usage<kValidateUsage>, run_validate};

}  // namespace scalestudy::cli
