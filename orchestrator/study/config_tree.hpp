// ConfigNode: a YAML document as a plain tree whose every node remembers the file, line and
// column it came from. yaml-cpp nodes do not know their file, and a study is merged from
// several files (`extends`, `defaults`), so the loader converts each file into this tree
// once and merges trees. Value type; not synchronised.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/source_location.hpp"

namespace scalestudy {

struct ConfigEntry;

struct ConfigNode {
  enum class Type { kNull, kScalar, kMap, kSequence };

  Type type = Type::kNull;
  SourceLocation location;
  std::string scalar;                // kScalar: the text as written
  bool quoted = false;               // kScalar: written in quotes, so never a number or boolean
  std::vector<ConfigEntry> entries;  // kMap, in file order; keys unique
  std::vector<ConfigNode> items;     // kSequence

  bool is_null() const { return type == Type::kNull; }
  bool is_scalar() const { return type == Type::kScalar; }
  bool is_map() const { return type == Type::kMap; }
  bool is_sequence() const { return type == Type::kSequence; }
  // The value of `key` in a map, or nullptr.
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  // Removes `key` from a map; returns whether it was there.
  bool erase(const std::string& key);
  // "scalar", "map", "list" or "null", for messages.
  const char* type_name() const;
};

struct ConfigEntry {
  std::string key;
  SourceLocation key_location;
  ConfigNode value;
};

// Parses YAML text; `file` names it in locations and errors. Duplicate keys, non-scalar
// keys and YAML syntax errors are errors with their position.
Result<ConfigNode> parse_config(const std::string& yaml_text,
                                const std::shared_ptr<const std::string>& file);

// parse_config() of a whole file that must be a map of fields: an empty file or another
// type is an error naming `what` ("study", "system").
Result<ConfigNode> parse_config_document(const std::string& yaml_text,
                                         const std::shared_ptr<const std::string>& file,
                                         const std::string& what);

// Deep merge: maps merge key by key (recursively), anything else in `overlay` replaces
// `base`. Keys new in `overlay` keep their own order after `base`'s keys.
void merge_config(ConfigNode& base, ConfigNode overlay);

}  // namespace scalestudy
