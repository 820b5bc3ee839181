#include "orchestrator/cli/open_study.hpp"

#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"

namespace scalestudy::cli {

std::optional<OpenedStudy> open_study_or_explain(const std::string& command,
                                                 const ParsedArgs& parsed) {
  auto location = campaign::locate_study(
      parsed.positionals.at(0), parsed.value_or("--results-dir", campaign::default_results_dir()));
  if (!location) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command.c_str(),
                 location.status().message().c_str());
    return std::nullopt;
  }
  auto state = campaign::StudyState::open_existing(location->database_path);
  if (!state) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command.c_str(), state.status().message().c_str());
    return std::nullopt;
  }
  return OpenedStudy{location->name, std::move(*state)};
}

}  // namespace scalestudy::cli
