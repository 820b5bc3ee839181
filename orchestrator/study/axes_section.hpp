// Reads a study's varied parameters: `matrix:` (every combination) and `zip:` (one group or
// a list of groups whose lists advance together). An axis is a parameter name, or
// global_batch / per_gpu_batch, with a list of values; a name is varied at most once. See
// studies/README.md.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads `matrix` and `zip` of the study `document` into study.matrix and study.zips.
void read_axes_section(const ConfigNode& document, StudyTemplate& study, Diagnostics& diagnostics);

}  // namespace scalestudy
