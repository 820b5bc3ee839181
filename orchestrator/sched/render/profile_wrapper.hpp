// Profiles as data: profiles/<name>.yaml says how to wrap a run's launch line (`wrapper`, the
// words placed before the workload binary, e.g. `nsys profile -o {{out_dir}}/rank%q{SLURM_PROCID}`)
// and which workload parameters a profiled run adds (`params`, e.g. profile_steps). The one
// reader of those files. Stateless; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

struct ProfileDefinition {
  std::string name;
  std::map<std::string, std::string> params;  // workload parameters a profiled run adds
  std::vector<std::string> wrapper;           // launch-line words (see job_script.hpp)
};

// Reads `<profiles_dir>/<name>.yaml`; errors name the file, position and field.
Result<ProfileDefinition> load_profile(const std::string& profiles_dir, const std::string& name);

// A wrapper word with its placeholders filled: {{out_dir}} (the run's output folder) and
// {{run_id}}. Anything else, e.g. SLURM's %q{SLURM_PROCID}, is left for the launcher.
std::string expand_wrapper_word(std::string word, const std::string& out_dir,
                                const std::string& run_id);

}  // namespace scalestudy
