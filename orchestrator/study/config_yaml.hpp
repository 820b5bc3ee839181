// A ConfigNode written back as YAML, keys in file order: for showing a merged document (a
// resolved system). Pure function.
#pragma once

#include <string>

#include "orchestrator/study/config_tree.hpp"

namespace scalestudy {

std::string config_to_yaml(const ConfigNode& node);

}  // namespace scalestudy
