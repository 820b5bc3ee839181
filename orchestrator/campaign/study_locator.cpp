#include "orchestrator/sched/study_locator.hpp"

#include <cstdlib>
#include <filesystem>

#include "orchestrator/sched/submit.hpp"

namespace scalestudy::sched {

std::string default_results_dir() {
  if (const char* dir = std::getenv("SCALESTUDY_RESULTS_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return "results";
}

Result<StudyLocation> locate_study(const std::string& argument, const std::string& results_dir) {
  namespace fs = std::filesystem;
  StudyLocation location;
  std::string extension = fs::path(argument).extension().string();
  bool yaml_path = extension == ".yaml" || extension == ".yml";
  if (yaml_path || fs::is_regular_file(argument)) {
    auto study = load_study(argument);
    if (!study) return study.status();
    location.name = study->name;
    location.study = std::move(*study);
  } else {
    location.name = argument;
  }
  location.database_path = study_database_path(results_dir, location.name);
  return location;
}

}  // namespace scalestudy::sched
