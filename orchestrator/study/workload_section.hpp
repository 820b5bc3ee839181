// Reads the invocation keys of a study's `workload:` map (args, flag_style, env_params,
// run_flags; see studies/README.md) into a WorkloadInvocation. The other keys of the map
// (binary and the parameters) are the study schema's. Pure functions.
#pragma once

#include <map>
#include <string>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/workload_invocation.hpp"

namespace scalestudy {

// Whether `key` is one of the invocation keys.
bool is_invocation_key(const std::string& key);

// Reads one invocation entry of `workload:` into `invocation`.
void read_invocation_entry(const ConfigEntry& entry, WorkloadInvocation& invocation,
                           Diagnostics& diagnostics);

}  // namespace scalestudy
