#include "orchestrator/systems/system_document.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace scalestudy::systems {
namespace {

namespace fs = std::filesystem;

struct SystemText {
  std::string text;
  std::string display_path;
};

Result<SystemText> read_system_text(const std::string& file) {
  if (file == kBuiltinLocalFile) return SystemText{kBuiltinLocalSystem, file};
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::error(file + ": cannot read the system file");
  std::ostringstream content;
  content << in.rdbuf();
  return SystemText{content.str(), file};
}

// The file that defines `id`: the path's, else the built-in `local`.
std::optional<std::string> locate(const SystemSearchPath& path, const std::string& id) {
  if (auto file = find_system_file(path, id)) return file;
  if (id == "local") return std::string(kBuiltinLocalFile);
  return std::nullopt;
}

std::string searched(const SystemSearchPath& path) {
  std::string dirs;
  for (const std::string& dir : path.dirs) dirs += (dirs.empty() ? "" : ", ") + dir;
  return dirs;
}

// The file's document with its parents merged under it; `chain` holds the ids being
// extended, outermost first.
Result<ConfigNode> load_with_parents(const SystemSearchPath& path, const std::string& file,
                                     std::vector<std::string>& chain) {
  Result<SystemText> text = read_system_text(file);
  if (!text) return text.status();
  auto name = std::make_shared<const std::string>(text->display_path);
  Result<ConfigNode> parsed = parse_config_document(text->text, name, "system");
  if (!parsed) return parsed.status();
  ConfigNode document = std::move(parsed).value();
  const ConfigNode* extends = document.find("extends");
  if (!extends) return document;
  const std::string where = extends->location.to_string() + ": field 'extends': ";
  if (!extends->is_scalar() || !is_system_id(extends->scalar)) {
    return Status::error(where + "expected the id of one parent system (as its file is named)");
  }
  const std::string parent = extends->scalar;
  for (const std::string& link : chain) {
    if (link != parent) continue;
    std::string cycle;
    for (const std::string& each : chain) cycle += each + " -> ";
    return Status::error(where + "cycle: " + cycle + parent);
  }
  std::optional<std::string> parent_file = locate(path, parent);
  if (!parent_file) {
    return Status::error(where + "no system '" + parent + "' (searched " + searched(path) + ")");
  }
  chain.push_back(parent);
  Result<ConfigNode> base = load_with_parents(path, *parent_file, chain);
  chain.pop_back();
  if (!base) return base.status();
  ConfigNode merged = std::move(base).value();
  // A parent's host pattern names the parent's hosts, not its children's.
  merged.erase("detect");
  document.erase("extends");
  merge_config(merged, std::move(document));
  return merged;
}

// Lays variant `name` over `document` and removes `variants`.
Status apply_variant(SystemDocument& system, const std::string& name) {
  ConfigNode* variants = system.merged.find("variants");
  if (variants != nullptr) {
    if (!variants->is_map()) {
      return Status::error(variants->location.to_string() +
                           ": field 'variants': expected a map of name: overlay, got a " +
                           variants->type_name());
    }
    for (const ConfigEntry& entry : variants->entries) {
      if (!is_system_id(entry.key)) {
        return Status::error(entry.key_location.to_string() + ": field 'variants." + entry.key +
                             "': a variant's name is selected as ID:NAME, so use lowercase "
                             "letters, digits, '-', '_' and '.'");
      }
      system.variants.push_back(entry.key);
    }
  }
  if (!name.empty()) {
    ConfigNode* overlay = variants != nullptr ? variants->find(name) : nullptr;
    if (overlay == nullptr) {
      std::string known;
      for (const std::string& each : system.variants) known += (known.empty() ? "" : ", ") + each;
      const std::string where =
          (variants != nullptr ? variants->location : system.merged.location).to_string();
      return Status::error(where + ": system '" + system.id + "' has no variant '" + name + "' (" +
                           (known.empty() ? "it has none" : "variants: " + known) + ")");
    }
    const std::string field = "variants." + name;
    if (!overlay->is_map()) {
      return Status::error(overlay->location.to_string() + ": field '" + field +
                           "': expected a map of system fields, got a " + overlay->type_name());
    }
    for (const char* key : {"extends", "variants", "detect"}) {
      if (const ConfigNode* refused = overlay->find(key)) {
        return Status::error(refused->location.to_string() + ": field '" + field +
                             "': a variant may not set '" + key + "'");
      }
    }
    ConfigNode chosen = std::move(*overlay);
    system.merged.erase("variants");
    merge_config(system.merged, std::move(chosen));
    system.variant = name;
    return Status::ok();
  }
  system.merged.erase("variants");
  return Status::ok();
}

Result<SystemDocument> load(const SystemSearchPath& path, const std::string& id,
                            const std::string& file, const std::string& variant) {
  std::vector<std::string> chain{id};
  Result<ConfigNode> merged = load_with_parents(path, file, chain);
  if (!merged) return merged.status();
  SystemDocument system{id, "", file, std::move(merged).value(), {}};
  if (Status status = apply_variant(system, variant); !status) return status;
  return system;
}

}  // namespace

bool system_exists(const SystemSearchPath& path, const std::string& id) {
  return locate(path, id).has_value();
}

Result<std::pair<std::string, std::string>> parse_system_label(const std::string& label) {
  const size_t colon = label.find(':');
  std::string id = label.substr(0, colon);
  std::string variant = colon == std::string::npos ? "" : label.substr(colon + 1);
  if (!is_system_id(id) || (colon != std::string::npos && !is_system_id(variant))) {
    return Status::error("'" + label +
                         "' is not a system: expected ID or ID:VARIANT (lowercase letters, "
                         "digits, '-', '_' and '.')");
  }
  return std::make_pair(id, variant);
}

Result<SystemDocument> load_system_document(const SystemSearchPath& path,
                                            const std::string& label) {
  auto parsed = parse_system_label(label);
  if (!parsed) return parsed.status();
  const auto& [id, variant] = *parsed;
  std::optional<std::string> file = locate(path, id);
  if (!file) {
    return Status::error("no system '" + id + "': no " + id + ".yaml in " + searched(path) +
                         " (scalestudy systems list shows the known ones)");
  }
  return load(path, id, *file, variant);
}

Result<SystemDocument> load_system_document_file(const SystemSearchPath& path,
                                                 const std::string& file,
                                                 const std::string& variant) {
  const std::string id = fs::path(file).stem().string();
  if (!is_system_id(id)) {
    return Status::error(file + ": a system file is named <id>.yaml, and '" + id +
                         "' is not an id (lowercase letters, digits, '-', '_' and '.')");
  }
  return load(path, id, file, variant);
}

}  // namespace scalestudy::systems
