#include "orchestrator/study/config_tree.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "harness/core/printable_text.hpp"
#include "orchestrator/study/diagnostics.hpp"

namespace scalestudy {
namespace {

// A study is a few levels deep and a few thousand values large; these limits are far above
// any real study and stop a few hundred bytes of nested aliases ("billion laughs") or
// brackets from taking the machine's memory or stack.
constexpr int kMaxNestingDepth = 64;
constexpr size_t kMaxValues = 1'000'000;

// The conversion's running totals, shared by the whole document.
struct ConvertBudget {
  size_t values_left = kMaxValues;
  int depth = 0;
};

Status convert(const YAML::Node& node, const std::shared_ptr<const std::string>& file,
               ConvertBudget& budget, ConfigNode& out) {
  out.location = location_from_mark(file, node.Mark());
  if (budget.values_left == 0) {
    return Status::error(out.location.to_string() + ": the document expands to more than " +
                         std::to_string(kMaxValues) +
                         " values (YAML aliases repeating anchors?); a study needs far fewer");
  }
  --budget.values_left;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.type = ConfigNode::Type::kNull;
      return Status::ok();
    case YAML::NodeType::Scalar:
      out.type = ConfigNode::Type::kScalar;
      out.scalar = node.Scalar();
      // yaml-cpp tags plain scalars "?" and quoted ones "!".
      out.quoted = node.Tag() == "!";
      return Status::ok();
    case YAML::NodeType::Sequence:
    case YAML::NodeType::Map:
      break;
  }
  if (budget.depth >= kMaxNestingDepth) {
    return Status::error(out.location.to_string() + ": lists and maps nest more than " +
                         std::to_string(kMaxNestingDepth) + " levels deep here");
  }
  ++budget.depth;
  Status status = Status::ok();
  if (node.IsSequence()) {
    out.type = ConfigNode::Type::kSequence;
    out.items.resize(node.size());
    for (size_t i = 0; i < node.size() && status; ++i) {
      status = convert(node[i], file, budget, out.items[i]);
    }
  } else {
    out.type = ConfigNode::Type::kMap;
    out.entries.reserve(node.size());
    std::unordered_set<std::string> keys;
    for (auto it = node.begin(); it != node.end() && status; ++it) {
      SourceLocation key_location = location_from_mark(file, it->first.Mark());
      if (!it->first.IsScalar()) {
        status = Status::error(key_location.to_string() + ": map keys must be plain words");
        break;
      }
      const std::string& key = it->first.Scalar();
      if (!keys.insert(key).second) {
        status = Status::error(key_location.to_string() + ": field '" + printable_text(key) +
                               "': duplicate key");
        break;
      }
      ConfigEntry entry{key, key_location, {}};
      status = convert(it->second, file, budget, entry.value);
      out.entries.push_back(std::move(entry));
    }
  }
  --budget.depth;
  return status;
}

}  // namespace

const ConfigNode* ConfigNode::find(const std::string& key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  return const_cast<ConfigNode*>(static_cast<const ConfigNode*>(this)->find(key));
}

bool ConfigNode::erase(const std::string& key) {
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->key == key) {
      entries.erase(it);
      return true;
    }
  }
  return false;
}

const char* ConfigNode::type_name() const {
  switch (type) {
    case Type::kScalar:
      return "scalar";
    case Type::kMap:
      return "map";
    case Type::kSequence:
      return "list";
    case Type::kNull:
      break;
  }
  return "null";
}

Result<ConfigNode> parse_config(const std::string& yaml_text,
                                const std::shared_ptr<const std::string>& file) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::DeepRecursion& error) {
    SourceLocation where = location_from_mark(file, error.mark);
    return Status::error(where.to_string() + ": invalid YAML: lists and maps nest more than " +
                         std::to_string(error.depth()) + " levels deep");
  } catch (const YAML::Exception& error) {
    SourceLocation where = location_from_mark(file, error.mark);
    return Status::error(where.to_string() + ": invalid YAML: " + printable_text(error.msg));
  }
  ConfigNode tree;
  ConvertBudget budget;
  if (Status status = convert(root, file, budget, tree); !status) return status;
  return tree;
}

Result<ConfigNode> parse_config_document(const std::string& yaml_text,
                                         const std::shared_ptr<const std::string>& file,
                                         const std::string& what) {
  Result<ConfigNode> parsed = parse_config(yaml_text, file);
  if (!parsed) return parsed.status();
  if (parsed->is_null()) {
    return Status::error(SourceLocation{file, 1, 1}.to_string() + ": the " + what +
                         " file is empty");
  }
  if (!parsed->is_map()) {
    return Status::error(parsed->location.to_string() + ": a " + what +
                         " is a map of fields, got a " + parsed->type_name());
  }
  return parsed;
}

void merge_config(ConfigNode& base, ConfigNode overlay) {
  if (!base.is_map() || !overlay.is_map()) {
    base = std::move(overlay);
    return;
  }
  std::unordered_map<std::string, size_t> base_index;
  for (size_t i = 0; i < base.entries.size(); ++i) base_index.emplace(base.entries[i].key, i);
  for (auto& entry : overlay.entries) {
    auto existing = base_index.find(entry.key);
    if (existing != base_index.end()) {
      merge_config(base.entries[existing->second].value, std::move(entry.value));
    } else {
      base.entries.push_back(std::move(entry));
    }
  }
}

}  // namespace scalestudy
