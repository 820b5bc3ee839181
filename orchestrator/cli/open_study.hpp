// The first step of every command that works on a study: STUDY (a study YAML or a study
// name) under --results-dir → its name and its opened state database, or, for the commands
// that submit (submit, run, profile), the loaded study YAML.
#pragma once

#include <optional>
#include <string>

#include "orchestrator/campaign/opened_study.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"

namespace scalestudy::cli {

// Opens the study named by the single positional; on failure prints why (prefixed with
// "scalestudy COMMAND: ") and returns nullopt — the command then exits with kExitFailure.
std::optional<campaign::OpenedStudy> open_study_or_explain(const std::string& command,
                                                           const ParsedArgs& parsed);

// Locates the study YAML named by the single positional under `results_dir`; on failure
// prints why and sets `exit_code`: kExitUsage when STUDY is not a YAML file, kExitFailure
// when it cannot be loaded.
std::optional<campaign::StudyLocation> locate_study_yaml_or_explain(const std::string& command,
                                                                    const ParsedArgs& parsed,
                                                                    const std::string& results_dir,
                                                                    int& exit_code);

}  // namespace scalestudy::cli
