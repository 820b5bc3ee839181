#include "orchestrator/study/study_document.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot read the file");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// Identifies a file in the extends chain, whatever relative path reached it.
std::string chain_key(const std::string& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  return error ? fs::path(path).lexically_normal().string() : canonical.string();
}

// `chain` holds the canonical paths of the files being extended, outermost first.
Result<ConfigNode> load_with_bases(const std::string& yaml_text, const std::string& display_path,
                                   std::vector<std::string>& chain) {
  auto file = std::make_shared<const std::string>(display_path);
  Result<ConfigNode> parsed = parse_config_document(yaml_text, file, "study");
  if (!parsed) return parsed.status();
  ConfigNode document = std::move(parsed).value();
  const ConfigNode* extends = document.find("extends");
  if (!extends) return document;
  if (!extends->is_scalar() || extends->scalar.empty()) {
    return Status::error(extends->location.to_string() +
                         ": field 'extends': expected the path of another study file");
  }
  fs::path base_path = fs::path(display_path).parent_path() / extends->scalar;
  std::string key = chain_key(base_path.string());
  for (const auto& visited : chain) {
    if (visited != key) continue;
    std::string cycle;
    for (const auto& link : chain) cycle += link + " -> ";
    return Status::error(extends->location.to_string() + ": field 'extends': cycle: " + cycle +
                         key);
  }
  Result<std::string> base_text = read_text_file(base_path.string());
  if (!base_text) {
    return Status::error(extends->location.to_string() + ": field 'extends': cannot read '" +
                         base_path.string() + "'");
  }
  chain.push_back(key);
  Result<ConfigNode> base = load_with_bases(*base_text, base_path.string(), chain);
  chain.pop_back();
  if (!base) return base.status();
  ConfigNode merged = std::move(base).value();
  document.erase("extends");
  merge_config(merged, std::move(document));
  return merged;
}

Result<ConfigNode> apply_defaults(ConfigNode document) {
  ConfigNode* defaults = document.find("defaults");
  if (!defaults) return document;
  if (!defaults->is_map()) {
    return Status::error(defaults->location.to_string() +
                         ": field 'defaults': expected a map of study fields, got a " +
                         defaults->type_name());
  }
  if (defaults->find("extends") || defaults->find("defaults")) {
    return Status::error(defaults->location.to_string() +
                         ": field 'defaults': may not hold 'extends' or 'defaults'");
  }
  ConfigNode merged = std::move(*defaults);
  document.erase("defaults");
  merge_config(merged, std::move(document));
  return merged;
}

}  // namespace

Result<ConfigNode> load_study_document(const std::string& yaml_text,
                                       const std::string& display_path) {
  std::vector<std::string> chain{chain_key(display_path)};
  Result<ConfigNode> document = load_with_bases(yaml_text, display_path, chain);
  if (!document) return document.status();
  return apply_defaults(std::move(document).value());
}

Result<ConfigNode> load_study_document_file(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return text.status();
  return load_study_document(*text, path);
}

}  // namespace scalestudy
