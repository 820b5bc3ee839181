// Reads a study file into one merged ConfigNode: follows `extends` (a path relative to the
// extending file; the child wins key by key, maps merge deeply), then lays the document over
// its `defaults` map. `extends` and `defaults` are gone from the result. Stateless.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/study/config_tree.hpp"

namespace scalestudy {

// `display_path` names the file in errors; `yaml_text` is its content.
Result<ConfigNode> load_study_document(const std::string& yaml_text,
                                       const std::string& display_path);
Result<ConfigNode> load_study_document_file(const std::string& path);

}  // namespace scalestudy
