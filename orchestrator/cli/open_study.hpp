// The first step of every command that works on a submitted study: STUDY (a study YAML or
// a study name) under --results-dir → its name and its opened state database.
#pragma once

#include <optional>
#include <string>

#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/cli/args.hpp"

namespace scalestudy::cli {

struct OpenedStudy {
  std::string name;
  campaign::StudyState state;
};

// Opens the study named by the single positional; on failure prints why (prefixed with
// "scalestudy COMMAND: ") and returns nullopt — the command then exits with kExitFailure.
std::optional<OpenedStudy> open_study_or_explain(const std::string& command,
                                                 const ParsedArgs& parsed);

}  // namespace scalestudy::cli
