// The first step of every command that reads or waits on a submitted study: STUDY (a study
// YAML, a study name or a study database) under the results dir → its name and its opened
// state database. Systems are taken by their labels (naming_only_system_choice).
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/campaign/study_state.hpp"

namespace scalestudy::campaign {

struct OpenedStudy {
  std::string name;
  StudyState state;
};

// An error when STUDY names no study with a database under `results_dir`.
Result<OpenedStudy> open_study(const std::string& study, const std::string& results_dir);

}  // namespace scalestudy::campaign
