// A system file made into what the study loader plans on (study/study_system.hpp): its job
// keys (partition, account, qos, constraint, reservation), node shape, default time and
// memory and runtime as study keys beneath the study's own; its limits with their lines;
// and the system choice the CLI hands to load_study: --system labels, resolution on the
// search path, and the implicit system of a study that names none. Reads files only.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/study_system.hpp"
#include "orchestrator/systems/system_search_path.hpp"

namespace scalestudy::systems {

Result<StudySystem> resolve_study_system(const SystemSearchPath& path, const std::string& label);

// `labels` from --system (may be empty); `hostname` picks the implicit system by `detect`,
// else it is `local`.
StudySystemChoice study_system_choice(const SystemSearchPath& path, std::vector<std::string> labels,
                                      const std::string& hostname);

}  // namespace scalestudy::systems
