// A study's `systems:` (studies/README.md): the systems its runs are planned on, an axis on
// which each run belongs to exactly one system. --system labels replace the list; with
// neither, the choice's implicit system (the one detected, else `local`) is used unnamed,
// so run ids stay those of a study without systems.
#pragma once

#include <vector>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_system.hpp"

namespace scalestudy {

// Removes `systems` from the study document and resolves the systems chosen; an unknown or
// repeated label is an error at the label (the study's line, or "command line").
std::vector<StudySystem> take_study_systems(ConfigNode& document, const StudySystemChoice& choice,
                                            Diagnostics& diagnostics);

}  // namespace scalestudy
