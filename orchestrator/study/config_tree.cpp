#include "orchestrator/study/config_tree.hpp"

#include <yaml-cpp/yaml.h>

#include <utility>

namespace scalestudy {
namespace {

Status convert(const YAML::Node& node, const std::shared_ptr<const std::string>& file,
               ConfigNode& out) {
  out.location = location_from_mark(file, node.Mark());
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
      out.type = ConfigNode::Type::kSequence;
      out.items.resize(node.size());
      for (size_t i = 0; i < node.size(); ++i) {
        if (Status status = convert(node[i], file, out.items[i]); !status) return status;
      }
      return Status::ok();
    case YAML::NodeType::Map:
      out.type = ConfigNode::Type::kMap;
      out.entries.reserve(node.size());
      for (auto it = node.begin(); it != node.end(); ++it) {
        SourceLocation key_location = location_from_mark(file, it->first.Mark());
        if (!it->first.IsScalar()) {
          return Status::error(key_location.to_string() + ": map keys must be plain words");
        }
        const std::string& key = it->first.Scalar();
        if (out.find(key)) {
          return Status::error(key_location.to_string() + ": field '" + key + "': duplicate key");
        }
        ConfigEntry entry{key, key_location, {}};
        if (Status status = convert(it->second, file, entry.value); !status) return status;
        out.entries.push_back(std::move(entry));
      }
      return Status::ok();
  }
  return Status::ok();
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
  } catch (const YAML::Exception& error) {
    SourceLocation where = location_from_mark(file, error.mark);
    return Status::error(where.to_string() + ": invalid YAML: " + error.msg);
  }
  ConfigNode tree;
  if (Status status = convert(root, file, tree); !status) return status;
  return tree;
}

void merge_config(ConfigNode& base, ConfigNode overlay) {
  if (!base.is_map() || !overlay.is_map()) {
    base = std::move(overlay);
    return;
  }
  for (auto& entry : overlay.entries) {
    if (ConfigNode* existing = base.find(entry.key)) {
      merge_config(*existing, std::move(entry.value));
    } else {
      base.entries.push_back(std::move(entry));
    }
  }
}

}  // namespace scalestudy
