// Reads a study's `target`: the validation figure its runs race to, for time-to-accuracy
// (`target: {val_accuracy: 0.88}` or `target: {val_loss: 0.4}`). The target reaches the
// workload as a parameter (target_val_accuracy / target_val_loss, so the flag
// --target-val-accuracy), which records when global validation first reaches it
// (docs/run-database.md, summary keys time_to_target_*). See studies/README.md.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Adds the target's parameter to study.params; errors name file:line:col.
void read_target_section(const ConfigNode& document, StudyTemplate& study,
                         Diagnostics& diagnostics);

}  // namespace scalestudy
