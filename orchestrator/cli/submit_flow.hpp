// The halves shared by `scalestudy submit` and `scalestudy run`: choosing and configuring a
// scheduler from the command line, and submitting a study with progress printed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/cli/args.hpp"

namespace scalestudy::cli {

// The options both commands accept: their own and every scheduler's (the registry's).
ArgSpec submit_arg_spec();

// One scheduler and the runs it submits. A study planned on several systems has one
// session per backend (and its settings); otherwise one.
struct SubmitSession {
  std::string scheduler_name;
  std::string system;  // the label of the named system it submits to; empty: none
  std::unique_ptr<sched::Scheduler> scheduler;
  campaign::SubmitOptions options;
  campaign::SubmitPlan plan;
};

// Reads the submit options of `parsed` for `study` and makes a session per scheduler its
// runs go to, those that run jobs inside submit last. On error prints it, prefixed with
// `command`, sets `exit_code` and returns nothing.
std::optional<std::vector<SubmitSession>> make_submit_sessions(const char* command,
                                                               const ParsedArgs& parsed,
                                                               const Study& study,
                                                               const std::string& results_dir,
                                                               int& exit_code);

// Submits through every session, quietly (the resubmissions of `run` and `wait`).
Status submit_sessions(std::vector<SubmitSession>& sessions);

// Submits what is not done yet and prints each session's outcome and a progress line.
// Returns the exit code: ok, or failure when some runs could not be submitted (runs
// waiting for a submit slot are no failure).
int submit_and_print(const char* command, std::vector<SubmitSession>& sessions);

// For `wait`: sessions that submit the waves a submit limit held back — the study YAML the
// database records, the scheduler, options and systems the last submit was given (its
// submit_choices), planned runs only. On error prints it and sets `exit_code`.
std::optional<std::vector<SubmitSession>> make_wave_sessions(const char* command,
                                                             campaign::StudyState& state,
                                                             const std::string& results_dir,
                                                             int& exit_code);

}  // namespace scalestudy::cli
