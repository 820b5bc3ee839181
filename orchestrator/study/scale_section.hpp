// Reads a study's `scale:` (see studies/README.md) into ScalePoints: each item a total rank
// count, split into whole nodes by the NodeDefaults of `slurm:`, or {nodes: N,
// gpus_per_node|ranks_per_node: K}. A strong or weak study must give it; any other study
// without it runs on one rank.
#pragma once

#include <vector>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/slurm_section.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads the `scale` field of the study `document`.
std::vector<ScalePoint> read_scale_section(const ConfigNode& document, StudyKind kind,
                                           const NodeDefaults& node_defaults,
                                           Diagnostics& diagnostics);

}  // namespace scalestudy
