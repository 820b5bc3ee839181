// Reads a study's `workload:` map (see studies/README.md): the binary, the parameters
// (each becomes a --flag of the workload and may hold ${references}), and the invocation
// keys (args, flag_style, env_params, run_flags) into a WorkloadInvocation.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads `workload` into study.binary, study.params and study.shared.invocation (and
// study.field_locations).
void read_workload_section(const ConfigNode& workload, StudyTemplate& study,
                           Diagnostics& diagnostics);

}  // namespace scalestudy
