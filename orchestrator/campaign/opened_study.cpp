#include "orchestrator/campaign/opened_study.hpp"

#include "orchestrator/campaign/study_locator.hpp"

namespace scalestudy::campaign {

Result<OpenedStudy> open_study(const std::string& study, const std::string& results_dir) {
  auto location = locate_study(study, results_dir, naming_only_system_choice());
  if (!location) return location.status();
  auto state = StudyState::open_existing(location->database_path);
  if (!state) return state.status();
  return OpenedStudy{location->name, std::move(*state)};
}

}  // namespace scalestudy::campaign
