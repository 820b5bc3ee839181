// The words a run's program receives after its binary and `args`, built from its parameters
// by the study's flag form (workload_invocation.hpp): positional words, scalestudy's own
// --run-id/--out-dir, then one flag per parameter in name order. Each flag is a group of
// one or two words, so a job script can print one flag per line. `${run_dir}` in a value
// (or an env value) is the run's folder, known only once the run id is. Pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "orchestrator/study/run_spec.hpp"

namespace scalestudy {

// The reference a parameter or env value uses for the run's folder; kept as written through
// expansion and the run id (which the folder's name depends on), replaced at launch.
inline constexpr const char* kRunDirReference = "${run_dir}";

// `text` with every ${run_dir} replaced by `run_dir`.
std::string with_run_dir(const std::string& text, const std::string& run_dir);

// One group per positional parameter, per run flag and per flag parameter; parameters the
// environment carries (env_params) or that are not passed (names: {x: none}) are left out.
std::vector<std::vector<std::string>> workload_flag_groups(const RunSpec& spec,
                                                           const std::string& out_dir);

// The variables every rank gets from the study: its `env`, and the parameters passed as
// environment variables (workload.env_params), ${run_dir} replaced.
std::map<std::string, std::string> workload_environment(const RunSpec& spec,
                                                        const std::string& out_dir);

}  // namespace scalestudy
