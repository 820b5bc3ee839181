// Text names of RunSpec enums ("strong", "torchrun") for YAML, JSON, tables and the run
// id, and their inverse. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "orchestrator/study/run_spec.hpp"

namespace scalestudy {

const char* study_kind_name(StudyKind kind);
std::optional<StudyKind> parse_study_kind(const std::string& name);

const char* launcher_name(LauncherKind launcher);
std::optional<LauncherKind> parse_launcher(const std::string& name);

}  // namespace scalestudy
