// `scalestudy cancel STUDY [--run ID]`: cancel a study's runs in flight.
#include <cstdio>
#include <iostream>

#include "orchestrator/campaign/wait.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/sched/scheduler_help.hpp"

namespace scalestudy::cli {
namespace {

// How each scheduler stops a job comes from the registry.
std::string cancel_usage() {
  return "usage: scalestudy cancel STUDY [--run ID] [--results-dir DIR]\n\n"
         "Cancels every pending or running run of the study (or only run ID) through its\n"
         "scheduler (" +
         sched::scheduler_cancel_means() +
         ") and\n"
         "records it as CANCELLED. A cancelled run counts as an attempt and is resubmitted by "
         "the\n"
         "next `scalestudy submit` while attempts remain. A run of a packed allocation is\n"
         "cancelled alone: its allocation never starts it, or stops its job step within\n"
         "seconds; the allocation's other runs go on.\n\n"
         "options:\n"
         "  --run ID           only this run\n"
         "  --results-dir DIR  results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n\n"
         "exit codes: 0 cancelled (or nothing in flight); 1 no such study or run; 2 wrong\n"
         "arguments; 3 a scheduler is unavailable, or a run could not be cancelled (a packed\n"
         "run's mark that cannot be written: the run goes on, named in the error).";
}

int run_cancel(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--run", "--results-dir"}, {}});
  if (auto done = parse_error_or_help("cancel", parsed, cancel_usage())) return *done;
  if (parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy cancel: expected STUDY\n%s\n", cancel_usage().c_str());
    return kExitUsage;
  }
  auto opened = open_study_or_explain("cancel", *parsed);
  if (!opened) return kExitFailure;
  campaign::StudyState& state = opened->state;
  auto cancelled = campaign::cancel_study(state, {}, parsed->value("--run"));
  if (!cancelled) {
    std::fprintf(stderr, "scalestudy cancel: %s\n", cancelled.status().message().c_str());
    return cancelled.status().message().rfind("no run", 0) == 0 ? kExitFailure : kExitEnvironment;
  }
  std::cout << "cancelled " << cancelled->size() << " run(s)";
  for (const auto& run_id : *cancelled) std::cout << " " << run_id;
  std::cout << std::endl;
  return kExitOk;
}

}  // namespace

extern const Command kCancelCommand = {"cancel", "cancel a study's pending and running runs",
                                       cancel_usage, run_cancel};

}  // namespace scalestudy::cli
