// `scalestudy wait STUDY`: block until every run of a study has finished.
#include <cstdio>
#include <iostream>

#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/campaign/wait.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/cli/progress_printer.hpp"
#include "orchestrator/cli/submit_flow.hpp"

namespace scalestudy::cli {
namespace {

const char kWaitUsage[] =
    "usage: scalestudy wait STUDY [--timeout SECONDS] [--poll-interval SECONDS]\n"
    "                       [--results-dir DIR]\n\n"
    "Polls the schedulers until no run of the study is pending or running, printing a\n"
    "progress line after each poll. Runs that a site submit limit held back (MaxSubmitJobs)\n"
    "are submitted here, wave by wave, as jobs finish. Runs that failed with attempts left\n"
    "are not resubmitted here: run `scalestudy submit` again (or `scalestudy run`, which\n"
    "does both).\n"
    "STUDY is the study YAML or the study's name under the results directory.\n\n"
    "options:\n"
    "  --timeout S        give up after S seconds (default: wait forever)\n"
    "  --poll-interval S  seconds between polls (default 10)\n"
    "  --results-dir DIR  results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n\n"
    "exit codes: 0 every run completed; 1 some run did not complete (or the timeout\n"
    "passed); 2 wrong arguments; 3 a scheduler is unavailable.";

int run_wait(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--timeout", "--poll-interval", "--results-dir"}, {}});
  if (auto done = parse_error_or_help("wait", parsed, kWaitUsage)) return *done;
  campaign::WaitOptions wait;
  try {
    wait.timeout_s = std::stod(parsed->value_or("--timeout", "0"));
    wait.poll_interval_s = std::stod(parsed->value_or("--poll-interval", "10"));
  } catch (const std::exception&) {
    std::fprintf(stderr, "scalestudy wait: --timeout and --poll-interval take seconds\n");
    return kExitUsage;
  }
  if (parsed->positionals.size() != 1 || wait.timeout_s < 0 || wait.poll_interval_s <= 0) {
    std::fprintf(stderr, "scalestudy wait: expected STUDY\n%s\n", kWaitUsage);
    return kExitUsage;
  }
  auto opened = open_study_or_explain("wait", *parsed);
  if (!opened) return kExitFailure;
  campaign::StudyState& state = opened->state;
  wait.on_progress = make_progress_printer();
  // Runs held back by a submit limit, or not reached in a packed allocation, are submitted
  // as later waves, the way the last submit was told; the sessions are made when first
  // needed (a packed run may fall out of its allocation while this waits).
  std::optional<std::vector<submission::SubmitSession>> waves;
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  int exit_code = kExitOk;
  auto make_waves = [&]() {
    if (!waves) waves = make_wave_sessions("wait", state, results_dir, exit_code);
    return waves.has_value();
  };
  auto progress = campaign::study_progress(state);
  if (progress && progress->waiting > 0 && !make_waves()) return exit_code;
  wait.resubmit = [&]() -> Status {
    auto now = campaign::study_progress(state);
    if (!now) return now.status();
    if (now->waiting == 0) return Status::ok();
    if (!make_waves())
      return Status::error("the runs waiting for a later wave cannot be submitted");
    return submission::submit_sessions(*waves).status();
  };
  // The first wave session (when made now) polls its own runs, configured as submit was.
  const submission::SubmitSession* first = waves ? &waves->front() : nullptr;
  auto outcome = campaign::wait_study(
      state, first ? first->options.scheduler_context : sched::SchedulerContext{}, wait,
      first ? first->scheduler.get() : nullptr);
  if (!outcome) {
    std::fprintf(stderr, "scalestudy wait: %s\n", outcome.status().message().c_str());
    return kExitEnvironment;
  }
  if (*outcome == campaign::WaitOutcome::kAllCompleted) return kExitOk;
  if (*outcome == campaign::WaitOutcome::kTimedOut) {
    std::fprintf(stderr, "scalestudy wait: timed out with runs still in flight\n");
    return kExitFailure;
  }
  if (auto progress = campaign::study_progress(state)) {
    for (const auto& run : progress->runs) {
      if (run.state == "COMPLETED") continue;
      std::string why = progress->exhausted(run)
                            ? campaign::failure_summary(run)
                            : run.state + (run.reason.empty() ? "" : ": " + run.reason) +
                                  " (attempts left: submit again)";
      std::fprintf(stderr, "run %s: %s\n", run.run_id.c_str(), why.c_str());
    }
  }
  return kExitFailure;
}

}  // namespace

extern const Command kWaitCommand = {"wait", "wait until every run of a study has finished",
                                     fixed_usage<kWaitUsage>, run_wait};

}  // namespace scalestudy::cli
