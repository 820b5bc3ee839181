// `scalestudy status STUDY`: where every run of a study stands.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"

namespace scalestudy::cli {
namespace {

const char kStatusUsage[] =
    "usage: scalestudy status STUDY [--watch [SECONDS]] [--format table|json]\n"
    "                         [--results-dir DIR]\n\n"
    "Asks the schedulers about runs in flight, records what they say, and prints one line\n"
    "per run (id, varied parameters, state, attempts, job id, reason) and a progress bar.\n"
    "STUDY is the study YAML or the study's name under the results directory.\n\n"
    "options:\n"
    "  --watch [SECONDS]  repeat every SECONDS (default 10) until every run has finished\n"
    "  --format F         table (default) or json\n"
    "  --results-dir DIR  results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n\n"
    "exit codes: 0 shown; 1 no such study; 2 wrong arguments; 3 a scheduler is unavailable.";

int run_status(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--format", "--results-dir"}, {"--watch"}});
  if (auto done = parse_error_or_help("status", parsed, kStatusUsage)) return *done;
  // `--watch 5`: the flag takes an optional number, which arrives as a positional.
  std::vector<std::string> positionals = parsed->positionals;
  double watch_s = parsed->has("--watch") ? 10 : 0;
  if (watch_s > 0 && positionals.size() == 2) {
    try {
      watch_s = std::stod(positionals[1]);
      positionals.pop_back();
    } catch (const std::exception&) {
    }
  }
  const std::string format = parsed->value_or("--format", "table");
  if (positionals.size() != 1 || (format != "table" && format != "json") || watch_s < 0) {
    std::fprintf(stderr, "scalestudy status: expected STUDY [--format table|json]\n%s\n",
                 kStatusUsage);
    return kExitUsage;
  }
  auto opened = open_study_or_explain("status", *parsed);
  if (!opened) return kExitFailure;
  campaign::StudyState& state = opened->state;
  while (true) {
    if (Status reconciled = campaign::reconcile_study(state, {}); !reconciled) {
      std::fprintf(stderr, "scalestudy status: %s\n", reconciled.message().c_str());
      return kExitEnvironment;
    }
    auto progress = campaign::study_progress(state);
    if (!progress) {
      std::fprintf(stderr, "scalestudy status: %s\n", progress.status().message().c_str());
      return kExitFailure;
    }
    if (format == "json") {
      std::cout << campaign::status_json(opened->name, *progress).dump(2) << std::endl;
    } else {
      if (watch_s > 0) std::cout << "\033[H\033[2J";
      std::cout << "study " << opened->name << "\n"
                << campaign::status_table(*progress) << campaign::failures_table(*progress)
                << campaign::nodes_table(*progress) << campaign::progress_line(*progress)
                << std::endl;
    }
    if (watch_s <= 0 || progress->in_flight == 0) return kExitOk;
    std::this_thread::sleep_for(std::chrono::duration<double>(watch_s));
  }
}

}  // namespace

extern const Command kStatusCommand = {"status", "show the state of every run of a study",
                                       fixed_usage<kStatusUsage>, run_status};

}  // namespace scalestudy::cli
