// The `workload.flags` setting: the form of the flags a program takes (`equals`, or a map
// with its form, booleans and per-parameter names) and `workload.flag_style`, its older
// spelling (dashes or underscores). Errors point at the value (file:line:column).
// Internal to orchestrator/study; pure functions.
#pragma once

#include <map>
#include <string>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/workload_invocation.hpp"

namespace scalestudy {

// Reads `workload.<key>` (flags or flag_style) into `invocation`.
void read_flags_setting(const ConfigEntry& entry, WorkloadInvocation& invocation,
                        Diagnostics& diagnostics);

// Checks that every parameter `flags.names` names is one the workload has (`params`, or
// the batch), and that none is both positional and an environment variable.
void check_flag_names(const ConfigNode& workload, const WorkloadInvocation& invocation,
                      const std::map<std::string, SourceLocation>& params,
                      Diagnostics& diagnostics);

}  // namespace scalestudy
