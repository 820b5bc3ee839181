// Finds a study's database from what a user types as STUDY: a study database file
// (*.sqlite) as is, otherwise what sched::locate_study makes of it (a study YAML, loaded
// for its name, or a bare study name) → <results_dir>/<name>.sqlite, which must exist.
#pragma once

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::results {

Result<std::string> locate_study_database(const std::string& study, const std::string& results_dir);

}  // namespace scalestudy::results
