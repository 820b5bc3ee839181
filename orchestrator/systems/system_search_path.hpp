// Where system files are found: the folders searched in order, the first <id>.yaml wins,
// so a user's own file shadows a shipped one of the same id. Reads the file system only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scalestudy::systems {

struct SystemSearchPath {
  std::vector<std::string> dirs;
};

// $SCALESTUDY_SYSTEMS (folders separated by ':'), then $XDG_CONFIG_HOME/scalestudy/systems
// (~/.config/... without it), then `shipped_dir` (the source tree's systems/).
SystemSearchPath default_system_search_path(const std::string& shipped_dir);

// A system id names a file: lowercase letters, digits, '-', '_' and '.', starting with a
// letter or digit, at most 64 characters.
bool is_system_id(std::string_view text);

struct SystemFile {
  std::string id;
  std::string path;                   // the file that wins
  std::vector<std::string> shadowed;  // files of the same id later on the path
};

// Every regular file *.yaml on the path, by name; one whose name is no id is listed too, so
// checking it says why it cannot be used.
std::vector<SystemFile> list_system_files(const SystemSearchPath& path);

std::optional<std::string> find_system_file(const SystemSearchPath& path, const std::string& id);

}  // namespace scalestudy::systems
