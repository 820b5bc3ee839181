#include "orchestrator/submission/system_choice.hpp"

#include <unistd.h>

#include "orchestrator/systems/system_for_study.hpp"

namespace scalestudy::submission {

systems::SystemSearchPath system_search_path() {
  return systems::default_system_search_path(SCALESTUDY_SYSTEMS_DIR);
}

std::string this_host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

StudySystemChoice system_choice(const std::vector<std::string>& labels) {
  return systems::study_system_choice(system_search_path(), labels, this_host_name());
}

}  // namespace scalestudy::submission
