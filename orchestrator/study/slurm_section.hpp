// Reads a study's `slurm:` map (see studies/README.md) into the shared run settings'
// SlurmOptions. Its gpus_per_node / ranks_per_node are no job option but the node shape
// that `scale` totals are split by, so they come back as NodeDefaults.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// How many ranks fill a node when `scale` gives a total; 0 when the study does not say.
struct NodeDefaults {
  int gpus_per_node = 0;   // > 0: a GPU study, one rank per GPU
  int ranks_per_node = 0;  // 0: every rank of a CPU run on one node
};

// Reads `slurm` into study.shared.slurm (and study.field_locations).
NodeDefaults read_slurm_section(const ConfigNode& slurm, StudyTemplate& study,
                                Diagnostics& diagnostics);

}  // namespace scalestudy
