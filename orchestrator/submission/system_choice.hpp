// The systems a study is planned on: the search path every caller shares, this host's name,
// and the labels asked for (the command line's --system, repeatable).
#pragma once

#include <string>
#include <vector>

#include "orchestrator/study/study_system.hpp"
#include "orchestrator/systems/system_search_path.hpp"

namespace scalestudy::submission {

// The option naming a system, on the command line and in a submit's recorded choices.
inline constexpr const char* kSystemOption = "--system";

systems::SystemSearchPath system_search_path();
std::string this_host_name();

// The systems `labels` name (none: the study's `systems:`, else the detected system).
StudySystemChoice system_choice(const std::vector<std::string>& labels);

}  // namespace scalestudy::submission
