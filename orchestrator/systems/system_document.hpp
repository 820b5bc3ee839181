// Reads a system into one merged ConfigNode: finds <id>.yaml on the search path, follows
// `extends` (the id of one parent system; the child wins key by key, maps merge deeply; the
// parent's `detect` is not inherited), then lays the chosen variant (`variants.<name>`,
// selected as `id:name`, defined by the system or a parent) over the whole result.
// Every error names the file, line and column it comes from. Reads files only.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/systems/system_search_path.hpp"

namespace scalestudy::systems {

struct SystemDocument {
  std::string id;
  std::string variant;                // empty: none chosen
  std::string file;                   // the file that defines `id`
  ConfigNode merged;                  // `extends` and `variants` are gone from it
  std::vector<std::string> variants;  // every variant the system (with its parents) defines
};

// "id" or "id:variant" -> {id, variant}; an error for a malformed label.
Result<std::pair<std::string, std::string>> parse_system_label(const std::string& label);

Result<SystemDocument> load_system_document(const SystemSearchPath& path, const std::string& label);

// The system in `file` (its id is the file's stem); its parents are found on `path`.
Result<SystemDocument> load_system_document_file(const SystemSearchPath& path,
                                                 const std::string& file,
                                                 const std::string& variant);

// Whether a file on `path` (or the built-in `local`) defines system `id`.
bool system_exists(const SystemSearchPath& path, const std::string& id);

// The built-in `local` system, used when no file on the path defines `local`, and the name
// that stands for its file.
extern const char* const kBuiltinLocalSystem;
inline constexpr const char* kBuiltinLocalFile = "<built-in local system>";

}  // namespace scalestudy::systems
