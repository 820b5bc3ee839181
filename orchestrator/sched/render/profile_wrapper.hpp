// Profiles as data: profiles/<name>.yaml says how to wrap a run's launch line (the words
// placed before the workload binary, e.g. `nsys profile -o {{out_dir}}/rank%q{SLURM_PROCID}`).
// This reader takes only the `wrapper` list; other keys belong to the profiling module.
// Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

// Reads `<profiles_dir>/<name>.yaml`; errors name the file and position.
Result<std::vector<std::string>> load_profile_wrapper(const std::string& profiles_dir,
                                                      const std::string& name);

// A wrapper word with its placeholders filled: {{out_dir}} (the run's output folder) and
// {{run_id}}. Anything else, e.g. SLURM's %q{SLURM_PROCID}, is left for the launcher.
std::string expand_wrapper_word(std::string word, const std::string& out_dir,
                                const std::string& run_id);

}  // namespace scalestudy
