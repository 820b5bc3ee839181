// Finding a study from a command-line argument: either the study YAML (loaded, so its runs
// can be submitted) or a study name whose database lives at <results_dir>/<name>.sqlite.
// Pure functions apart from reading files.
#pragma once

#include <optional>
#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::sched {

struct StudyLocation {
  std::string name;
  std::string database_path;
  std::optional<Study> study;  // set when the argument was a YAML file
};

// A path to an existing .yaml/.yml file is loaded; anything else is a study name.
Result<StudyLocation> locate_study(const std::string& argument, const std::string& results_dir);

// --results-dir default: $SCALESTUDY_RESULTS_DIR, else "results".
std::string default_results_dir();

}  // namespace scalestudy::sched
