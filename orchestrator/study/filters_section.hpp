// Reads which runs a study keeps and which it compares against: `exclude` (partial
// assignments to drop), `where` (expressions a run must satisfy) and `baseline` (the run
// the report measures against). Each names the study's variables, so the slots must be
// known first. See studies/README.md.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads those fields of the study `document` into study.excludes, study.wheres,
// study.baseline and study.info.baseline; study.slot_names must be set.
void read_filters_section(const ConfigNode& document, StudyTemplate& study,
                          Diagnostics& diagnostics);

}  // namespace scalestudy
