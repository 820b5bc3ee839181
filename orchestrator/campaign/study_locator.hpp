// Finding a study from what a user types as STUDY: the study YAML (loaded, so its runs can
// be submitted), a study name whose database lives at <results_dir>/<name>.sqlite, or (for
// the commands that only read results) a study database file as is. The one place that
// maps a STUDY argument to a database path. Pure functions apart from reading files.
#pragma once

#include <optional>
#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::campaign {

struct StudyLocation {
  std::string name;
  std::string database_path;
  std::optional<Study> study;  // set when the argument was a YAML file
};

// A path to an existing .yaml/.yml file is loaded; anything else is a study name.
// `systems`: as load_study plans the study on systems.
Result<StudyLocation> locate_study(const std::string& argument, const std::string& results_dir,
                                   const StudySystemChoice& systems = {});

// The database of an already submitted study: a *.sqlite path as is, otherwise what
// locate_study makes of `study` → <results_dir>/<name>.sqlite. Either must exist.
Result<std::string> locate_study_database(const std::string& study, const std::string& results_dir,
                                          const StudySystemChoice& systems = {});

// A side of `compare`: STUDY, or STUDY@SUFFIX where SUFFIX selects runs within the study's
// database (a system of the study, or a git commit prefix); STUDY@CAMPAIGN names a database
// of its own and selects nothing. A path may hold '@' before its last '/'.
struct StudySelection {
  std::string database;  // as locate_study_database finds it (systems by their labels)
  std::string suffix;    // what follows '@' when it selects runs; may be empty
};
Result<StudySelection> locate_study_selection(const std::string& text,
                                              const std::string& results_dir);

// For commands that only need the study's name (report, status, ingest, ...): systems are
// taken by their labels and no system file is read, so a system file missing here, or a
// limit tightened since, never stops a read of results already there.
StudySystemChoice naming_only_system_choice();

// --results-dir default: $SCALESTUDY_RESULTS_DIR, else "results".
std::string default_results_dir();

}  // namespace scalestudy::campaign
