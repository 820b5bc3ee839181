// The systems a command plans a study on: the search path every command shares, this host's
// name, and --system (repeatable) from the command line.
#pragma once

#include <string>

#include "orchestrator/cli/args.hpp"
#include "orchestrator/study/study_system.hpp"
#include "orchestrator/systems/system_search_path.hpp"

namespace scalestudy::cli {

inline constexpr const char* kSystemOption = "--system";

systems::SystemSearchPath system_search_path();
std::string this_host_name();

// --system labels from `parsed` (none: the study's `systems:`, else the detected system).
StudySystemChoice system_choice(const ParsedArgs& parsed);
// For commands that only need the study's name (report, status, ingest, ...): systems are
// taken by their labels and no system file is read, so a system file missing here, or a
// limit tightened since, never stops a read of results already there.
StudySystemChoice naming_only_system_choice();

}  // namespace scalestudy::cli
