#include "orchestrator/systems/system_search_path.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace scalestudy::systems {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxIdLength = 64;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

SystemSearchPath default_system_search_path(const std::string& shipped_dir) {
  SystemSearchPath path;
  std::string listed = environment("SCALESTUDY_SYSTEMS");
  for (size_t start = 0; start <= listed.size();) {
    size_t end = std::min(listed.find(':', start), listed.size());
    if (end > start) path.dirs.push_back(listed.substr(start, end - start));
    start = end + 1;
  }
  std::string config = environment("XDG_CONFIG_HOME");
  if (config.empty() && !environment("HOME").empty()) config = environment("HOME") + "/.config";
  if (!config.empty()) path.dirs.push_back(config + "/scalestudy/systems");
  path.dirs.push_back(shipped_dir);
  return path;
}

bool is_system_id(std::string_view text) {
  if (text.empty() || text.size() > kMaxIdLength) return false;
  auto allowed = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  };
  return std::isalnum(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), allowed);
}

std::vector<SystemFile> list_system_files(const SystemSearchPath& path) {
  std::map<std::string, SystemFile> by_id;
  for (const std::string& dir : path.dirs) {
    std::error_code error;
    std::vector<fs::path> files;
    for (fs::directory_iterator entry(dir, error), end; !error && entry != end;
         entry.increment(error)) {
      std::error_code type_error;
      if (entry->path().extension() == ".yaml" && entry->is_regular_file(type_error)) {
        files.push_back(entry->path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::string id = file.stem().string();
      auto [found, inserted] = by_id.try_emplace(id, SystemFile{id, file.string(), {}});
      if (!inserted) found->second.shadowed.push_back(file.string());
    }
  }
  std::vector<SystemFile> files;
  for (auto& [id, file] : by_id) files.push_back(std::move(file));
  return files;
}

std::optional<std::string> find_system_file(const SystemSearchPath& path, const std::string& id) {
  if (!is_system_id(id)) return std::nullopt;
  for (const std::string& dir : path.dirs) {
    fs::path file = fs::path(dir) / (id + ".yaml");
    std::error_code error;
    if (fs::is_regular_file(file, error)) return file.string();
  }
  return std::nullopt;
}

}  // namespace scalestudy::systems
