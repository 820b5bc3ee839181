// Submitting is a library call: a SubmitRequest becomes one session per scheduler its runs
// go to (the checks before anything is submitted made first: the workload parameters, the
// scheduler's options, a packed sweep's allocations, the GPU-hour budget, the fault hook),
// and each session submits through campaign::submit_study. The notes, warnings, failures
// and reports are values; the command line prints them (cli/submit_flow).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/submission/submit_request.hpp"
#include "orchestrator/submission/workload_param_check.hpp"

namespace scalestudy::submission {

// One scheduler and the runs it submits. A study planned on several systems has one
// session per backend (and its settings); otherwise one.
struct SubmitSession {
  std::string scheduler_name;
  std::string system;  // the label of the named system it submits to; empty: none
  std::unique_ptr<sched::Scheduler> scheduler;
  campaign::SubmitOptions options;
  campaign::SubmitPlan plan;
};

// What setting up a submit came to: the sessions, or why none. The parameter check's notes
// and the interference warnings come with either.
struct SubmitSetup {
  WorkloadParamCheck params;          // its notes: the programs left unchecked, and why
  std::vector<std::string> warnings;  // each session's interference risks, in order
  std::optional<SubmitFailure> failure;
  std::vector<SubmitSession> sessions;  // those that run jobs inside submit (local) last
};

// Checks `request` and makes a session per scheduler its study's runs go to; nothing is
// submitted yet. A scheduler that is no dry run's must be reachable.
SubmitSetup make_submit_sessions(const SubmitRequest& request);

// Submits what `session` has not done yet: what it submitted, skipped and could not submit.
Result<campaign::SubmitReport> submit_session(SubmitSession& session);

// Submits through every session in turn; the first error stops it.
Result<std::vector<campaign::SubmitReport>> submit_sessions(std::vector<SubmitSession>& sessions);

}  // namespace scalestudy::submission
