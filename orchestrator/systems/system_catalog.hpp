// The systems as the CLI and the planner ask for them: one system resolved and checked
// (`id` or `id:variant`), a file checked with every variant it defines, the list of known
// systems (and the columns `systems list` shows), and the system whose `detect` pattern matches a
// host. Reads files only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/systems/system_search_path.hpp"
#include "orchestrator/systems/system_spec.hpp"

namespace scalestudy::systems {

// The system `label` names, with every schema error (file:line:col each) as one error.
Result<SystemSpec> resolve_system(const SystemSearchPath& path, const std::string& label);

// The system in `file` and each of its variants, checked; every problem found, one per line.
Status check_system_file(const SystemSearchPath& path, const std::string& file);

// Each known system, resolved; a file that does not resolve gives its error instead.
struct SystemListing {
  SystemFile file;
  Result<SystemSpec> system;
};
std::vector<SystemListing> list_systems(const SystemSearchPath& path);

// The columns `systems list` shows of a resolved listing: id, scheduler (and partition),
// node (GPUs, cores), max nodes, variants and file (and the files it shadows); "-" for
// what it does not say.
std::vector<std::string> system_list_row(const SystemListing& listing);

// The file of `system` as written (the built-in local system: its YAML).
std::string system_file_text(const SystemSpec& system);

// The files `systems check` checks: `files`, else every system file on the path.
std::vector<std::string> system_files_to_check(const SystemSearchPath& path,
                                               const std::vector<std::string>& files);

// The first system (by id) whose detect.hostname matches all of `hostname`; the systems
// that could not be read are named in `problems`, so a broken file is not silently passed by.
struct DetectedSystem {
  std::optional<std::string> id;
  std::vector<std::string> problems;
};
DetectedSystem detect_system(const SystemSearchPath& path, const std::string& hostname);

}  // namespace scalestudy::systems
