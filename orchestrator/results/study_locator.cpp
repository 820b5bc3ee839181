#include "orchestrator/results/study_locator.hpp"

#include <filesystem>

#include "orchestrator/sched/empty_database_check.hpp"
#include "orchestrator/sched/study_locator.hpp"

namespace scalestudy::results {

Result<std::string> locate_study_database(const std::string& study,
                                          const std::string& results_dir) {
  namespace fs = std::filesystem;
  if (fs::path(study).extension() == ".sqlite") {
    if (!fs::is_regular_file(study)) return Status::error(study + ": no such study database");
    if (Status empty = sched::refuse_empty_database(study); !empty) return empty;
    return study;
  }
  auto location = sched::locate_study(study, results_dir);
  if (!location) return location.status();
  if (!fs::is_regular_file(location->database_path)) {
    return Status::error("no study database " + location->database_path + " for study '" +
                         location->name + "' (submit it first, or pass --results-dir)");
  }
  if (Status empty = sched::refuse_empty_database(location->database_path); !empty) return empty;
  return location->database_path;
}

}  // namespace scalestudy::results
