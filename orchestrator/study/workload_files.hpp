// Per-run files from templates (`workload.files: {NAME: TEMPLATE}`): any text (TOML, JSON,
// YAML, a shell fragment) rendered per run through the study language's ${...} into the
// run folder as NAME, where `${files.NAME}` finds it. A value substituted into a JSON or
// TOML file (by NAME's extension) is escaped as a string's content would be, so a quote or
// a backslash in it cannot end the string; a rendered .json, .toml, .yaml or .yml file
// must parse, so a broken template fails when the study loads, not on the cluster.
// Internal to orchestrator/study; pure functions.
#pragma once

#include <map>
#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads `workload.files` into study.files: names one file-name component each, templates
// text whose ${} references are syntax-checked.
void read_workload_files(const ConfigNode& files, StudyTemplate& study, Diagnostics& diagnostics);

// `value` as it goes into file `name`: escaped for a JSON or TOML string, else as it is.
std::string escaped_for_file(const std::string& name, const std::string& value);

// An error (with the line) when `content`, rendered for file `name`, does not parse as the
// kind its extension names; OK for any other file.
Status check_rendered_file(const std::string& name, const std::string& content);

}  // namespace scalestudy
