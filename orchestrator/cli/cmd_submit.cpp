// `scalestudy submit STUDY.yaml`: submit every run of a study that is not done yet.
#include <cstdio>
#include <string>
#include <vector>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/cli/submit_flow.hpp"
#include "orchestrator/sched/scheduler_help.hpp"

namespace scalestudy::cli {
namespace {

const char kIntroduction[] =
    "Submits every run of the study that is not done: never-submitted runs, and runs that\n"
    "ended FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY or CANCELLED while attempts\n"
    "remain (the study's max_attempts). Completed runs are skipped, pending and running ones\n"
    "left alone, so submit can be repeated after any failure; two submits at once never\n"
    "submit a run twice. State lives in DIR/<study>.sqlite; run output in\n"
    "DIR/<study>/runs/<run_id>/.\n\n";

const char kClosing[] =
    "  --system ID[:VAR] plan the study on this system instead of its `systems:` (repeatable;\n"
    "                    `scalestudy systems list`); each system's runs go to its own\n"
    "                    scheduler, and a run over its system's limits is refused before\n"
    "                    anything is submitted\n"
    "  --campaign NAME   measure the study again as campaign NAME: its own database\n"
    "                    DIR/<study>@NAME.sqlite and run folders, run ids unchanged; `auto`\n"
    "                    names it from the UTC date and the workload's git commit. Without it:\n"
    "                    the default campaign. STUDY@NAME reaches it in wait, status, report,\n"
    "                    compare; `scalestudy history STUDY` follows every campaign\n"
    "  --dry-run         write the job scripts and list what would be submitted; submit nothing\n"
    "  --packed          the whole sweep in one allocation, each run a job step (as the study's\n"
    "                    allocation: packed; batch schedulers only, the local one ignores it)\n"
    "  --max-gpu-hours H refuse, before submitting anything, a study whose runs request more\n"
    "                    than H GPU-hours (time limit × nodes × GPUs); the study's\n"
    "                    budget: {gpu_hours: H} does the same\n\n"
    "exit codes: 0 submitted (or nothing to do); 1 the study is invalid, over budget, or some\n"
    "runs could not be submitted; 2 wrong arguments; 3 the scheduler is unavailable.";

// The scheduler names, options and notes come from the registry.
std::string submit_usage() {
  std::vector<std::string> synopsis = {"[--scheduler " + sched::scheduler_choices("|") + "]",
                                       "[--results-dir DIR]"};
  for (const std::string& option : sched::scheduler_option_synopsis()) synopsis.push_back(option);
  synopsis.insert(synopsis.end(), {"[--system ID[:VARIANT]]...", "[--campaign NAME|auto]",
                                   "[--dry-run]", "[--packed]", "[--max-gpu-hours H]"});
  return sched::wrap_units("usage: scalestudy submit STUDY.yaml ", synopsis, 25) + "\n\n" +
         kIntroduction + sched::scheduler_notes() + "options:\n" + sched::scheduler_flag_help() +
         "  --results-dir DIR results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n" +
         sched::scheduler_option_help() + kClosing;
}

int run_submit(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, submit_arg_spec());
  if (!parsed) {
    std::fprintf(stderr, "scalestudy submit: %s\n%s\n", parsed.status().message().c_str(),
                 submit_usage().c_str());
    return kExitUsage;
  }
  if (parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy submit: expected one STUDY.yaml\n%s\n",
                 submit_usage().c_str());
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  int exit_code = kExitOk;
  auto location = locate_study_yaml_or_explain("submit", *parsed, results_dir, exit_code);
  if (!location) return exit_code;
  auto sessions =
      make_submit_sessions("submit", *parsed, std::move(*location->study), results_dir, exit_code);
  return sessions ? submit_and_print("submit", *sessions) : exit_code;
}

}  // namespace

extern const Command kSubmitCommand = {"submit", "submit every run of a study that is not done",
                                       submit_usage, run_submit};

}  // namespace scalestudy::cli
