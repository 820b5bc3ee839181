#include "orchestrator/cli/open_study.hpp"

#include <cstdio>

#include "orchestrator/cli/command.hpp"
#include "orchestrator/submission/system_choice.hpp"

namespace scalestudy::cli {

std::optional<campaign::OpenedStudy> open_study_or_explain(const std::string& command,
                                                           const ParsedArgs& parsed) {
  auto opened = campaign::open_study(
      parsed.positionals.at(0), parsed.value_or("--results-dir", campaign::default_results_dir()));
  if (!opened) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command.c_str(), opened.status().message().c_str());
    return std::nullopt;
  }
  return std::move(*opened);
}

std::optional<campaign::StudyLocation> locate_study_yaml_or_explain(const std::string& command,
                                                                    const ParsedArgs& parsed,
                                                                    const std::string& results_dir,
                                                                    int& exit_code) {
  auto location =
      campaign::locate_study(parsed.positionals.at(0), results_dir,
                             submission::system_choice(parsed.values(submission::kSystemOption)));
  if (location && location->study) return std::move(*location);
  if (location) {
    std::fprintf(stderr, "scalestudy %s: STUDY must be a study YAML file\n", command.c_str());
    exit_code = kExitUsage;
  } else {
    std::fprintf(stderr, "%s\n", location.status().message().c_str());
    exit_code = kExitFailure;
  }
  return std::nullopt;
}

}  // namespace scalestudy::cli
