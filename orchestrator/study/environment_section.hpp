// Reads where and how a study's runs start: `launcher`, `modules`, `container`, `env`,
// `env_passthrough` and `profile` (see studies/README.md), into the run settings every run
// shares. Text that may reach a job script is checked to hold no control characters; an
// `env` name that looks secret (secret_names.hpp) is refused.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads those fields of the study `document` into study.shared (and study.field_locations).
void read_environment_section(const ConfigNode& document, StudyTemplate& study,
                              Diagnostics& diagnostics);

// Only `modules`, `container` and `env` of `map`, their field names led by `prefix`
// ("runtime." in a system file).
void read_runtime_fields(const ConfigNode& map, const std::string& prefix, StudyTemplate& study,
                         Diagnostics& diagnostics);

}  // namespace scalestudy
