// The halves shared by `scalestudy submit` and `scalestudy run`: choosing and configuring a
// scheduler from the command line, and submitting a study with progress printed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/cli/args.hpp"

namespace scalestudy::cli {

// The options both commands accept: their own and every scheduler's (the registry's).
ArgSpec submit_arg_spec();

struct SubmitSession {
  std::string scheduler_name;
  std::unique_ptr<sched::Scheduler> scheduler;
  campaign::SubmitOptions options;
  campaign::SubmitPlan plan;
};

// Reads the submit options of `parsed` for `study`. On error prints it, prefixed with
// `command`, sets `exit_code` and returns nothing.
std::optional<SubmitSession> make_submit_session(const char* command, const ParsedArgs& parsed,
                                                 const Study& study, const std::string& results_dir,
                                                 int& exit_code);

// Submits what is not done yet and prints the outcome and a progress line. Returns the
// exit code: ok, or failure when some runs could not be submitted (runs waiting for a
// submit slot are no failure).
int submit_and_print(const char* command, SubmitSession& session);

// For `wait`: a session that submits the waves a submit limit held back — the study YAML
// the database records, the scheduler and options the last submit was given (its
// submit_choices), planned runs only. On error prints it and sets `exit_code`.
std::optional<SubmitSession> make_wave_session(const char* command, campaign::StudyState& state,
                                               const std::string& results_dir, int& exit_code);

}  // namespace scalestudy::cli
