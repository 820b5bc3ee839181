#include "orchestrator/campaign/study_locator.hpp"

#include <cstdlib>
#include <filesystem>

#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/common/empty_database_check.hpp"

namespace scalestudy::campaign {

StudySystemChoice naming_only_system_choice() {
  StudySystemChoice choice;
  choice.resolve = [](const std::string& label) -> Result<StudySystem> {
    StudySystem system;
    system.run.id = label;
    return system;
  };
  return choice;
}

std::string default_results_dir() {
  if (const char* dir = std::getenv("SCALESTUDY_RESULTS_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return "results";
}

Result<StudyLocation> locate_study(const std::string& argument, const std::string& results_dir,
                                   const StudySystemChoice& systems) {
  namespace fs = std::filesystem;
  StudyLocation location;
  std::string extension = fs::path(argument).extension().string();
  bool yaml_path = extension == ".yaml" || extension == ".yml";
  if (yaml_path || fs::is_regular_file(argument)) {
    auto study = load_study(argument, systems);
    if (!study) return study.status();
    location.name = study->name;
    location.study = std::move(*study);
  } else {
    location.name = argument;
  }
  location.database_path = study_database_path(results_dir, location.name);
  return location;
}

Result<std::string> locate_study_database(const std::string& study, const std::string& results_dir,
                                          const StudySystemChoice& systems) {
  namespace fs = std::filesystem;
  if (fs::path(study).extension() == ".sqlite") {
    if (!fs::is_regular_file(study)) return Status::error(study + ": no such study database");
    if (Status empty = common::refuse_empty_database(study); !empty) return empty;
    return study;
  }
  auto location = locate_study(study, results_dir, systems);
  if (!location) return location.status();
  if (!fs::is_regular_file(location->database_path)) {
    return Status::error("no study database " + location->database_path + " for study '" +
                         location->name + "' (submit it first, or pass --results-dir)");
  }
  if (Status empty = common::refuse_empty_database(location->database_path); !empty) return empty;
  return location->database_path;
}

Result<StudySelection> locate_study_selection(const std::string& text,
                                              const std::string& results_dir) {
  // STUDY@CAMPAIGN names a database of its own; otherwise '@' selects runs within one.
  StudySelection selection;
  std::string study = text;
  const auto at = text.rfind('@');
  if (!std::filesystem::is_regular_file(study_database_path(results_dir, text)) &&
      at != std::string::npos && at != 0 && at + 1 != text.size() &&
      text.find('/', at) == std::string::npos) {
    study = text.substr(0, at);
    selection.suffix = text.substr(at + 1);
  }
  auto database = locate_study_database(study, results_dir, naming_only_system_choice());
  if (!database) return database.status();
  selection.database = std::move(*database);
  return selection;
}

}  // namespace scalestudy::campaign
