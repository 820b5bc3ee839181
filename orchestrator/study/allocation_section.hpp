// Reads `allocation`: how the study's runs get their nodes on a batch scheduler. `per_run`
// (the default): each run is a job of its own (or a job-array task); `packed`: the whole
// sweep is one allocation sized for its largest run, each run a job step in it
// (studies/README.md, "Packed vs arrays"). And `pack: {policy: serial|concurrent}`: whether
// a packed allocation runs its steps one after another or side by side on disjoint nodes;
// serial by default for strong-scaling studies (co-running steps share the fabric their
// speedup is measured on), concurrent for the rest.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

void read_allocation_section(const ConfigNode& document, StudyTemplate& study,
                             Diagnostics& diagnostics);

}  // namespace scalestudy
