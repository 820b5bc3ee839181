// The command-line half shared by `scalestudy submit`, `scalestudy run` and `wait`'s waves:
// the flags made into a submission::SubmitRequest, and what the submission library returns
// (notes, warnings, failures, each session's report) printed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/cli/args.hpp"
#include "orchestrator/submission/submit_sessions.hpp"

namespace scalestudy::cli {

// The options both commands accept: their own and every scheduler's (the registry's).
ArgSpec submit_arg_spec();

// The exit code of a submission failure of `kind`: the study (1), the arguments (2), the
// environment (3).
int exit_code_of(submission::SubmitFailure::Kind kind);

// Reads the submit options of `parsed` for `study` and makes a session per scheduler its
// runs go to (submission::make_submit_sessions). On error prints it, prefixed with
// `command`, sets `exit_code` and returns nothing.
std::optional<std::vector<submission::SubmitSession>> make_submit_sessions(
    const char* command, const ParsedArgs& parsed, Study study, const std::string& results_dir,
    int& exit_code, common::InterruptWatch* interrupts = nullptr);

// Submits what is not done yet and prints each session's outcome and a progress line.
// Returns the exit code: ok, or failure when some runs could not be submitted (runs
// waiting for a submit slot are no failure).
int submit_and_print(const char* command, std::vector<submission::SubmitSession>& sessions);

// For `wait`: submission::make_wave_sessions, its notes and failure printed as above.
std::optional<std::vector<submission::SubmitSession>> make_wave_sessions(
    const char* command, campaign::StudyState& state, const std::string& results_dir,
    int& exit_code);

}  // namespace scalestudy::cli
