#include "orchestrator/study/config_yaml.hpp"

#include <yaml-cpp/yaml.h>

namespace scalestudy {
namespace {

void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.type) {
    case ConfigNode::Type::kNull:
      out << YAML::Null;
      return;
    case ConfigNode::Type::kScalar:
      // A quoted scalar stays a string when read again ("08", "yes").
      if (node.quoted) out << YAML::DoubleQuoted;
      out << node.scalar;
      return;
    case ConfigNode::Type::kSequence:
      out << YAML::BeginSeq;
      for (const ConfigNode& item : node.items) emit(out, item);
      out << YAML::EndSeq;
      return;
    case ConfigNode::Type::kMap:
      out << YAML::BeginMap;
      for (const ConfigEntry& entry : node.entries) {
        out << YAML::Key << entry.key << YAML::Value;
        emit(out, entry.value);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

std::string config_to_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  emit(out, node);
  return std::string(out.c_str()) + "\n";
}

}  // namespace scalestudy
