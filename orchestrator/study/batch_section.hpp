// Reads the batch a study gives: `global_batch` or `per_gpu_batch`, fixed or as a matrix/zip
// axis, checked against the study's kind (strong fixes the global batch, weak the per-GPU
// one), and `uneven_batch`. See studies/README.md.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads the batch fields of the study `document` into study.batch_given, study.batch and
// study.round_down_uneven_batch; study.info.kind must be read already.
void read_batch_section(const ConfigNode& document, StudyTemplate& study, Diagnostics& diagnostics);

}  // namespace scalestudy
