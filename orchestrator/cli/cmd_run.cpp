// `scalestudy run STUDY.yaml`: the whole workflow in one command — submit every run that
// is not done, wait (resubmitting failed runs while attempts remain), ingest, report.
#include <cstdio>
#include <iostream>

#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/campaign/wait.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/cli/progress_printer.hpp"
#include "orchestrator/cli/report_flow.hpp"
#include "orchestrator/cli/submit_flow.hpp"
#include "orchestrator/common/interrupt_watch.hpp"
#include "orchestrator/sched/scheduler_help.hpp"

namespace scalestudy::cli {
namespace {

const char kIntroduction[] =
    "usage: scalestudy run STUDY.yaml [submit options] [report options]\n"
    "                      [--timeout SECONDS] [--poll-interval SECONDS]\n\n"
    "Submits every run of the study that is not done (as `scalestudy submit`), waits until\n"
    "every run has finished, resubmitting runs that failed while the study's max_attempts\n"
    "allow, ingests the run databases and prints the report (as `scalestudy report`).\n"
    "Re-running it resumes: completed runs are skipped.\n\n";

const char kClosing[] =
    "report options: --format, --wide, --baseline, --plots, --no-plots, --html, --comm-model,\n"
    "  thresholds (see `scalestudy report --help`)\n"
    "  --timeout S        stop waiting after S seconds (default: no limit)\n"
    "  --poll-interval S  seconds between scheduler polls (default 5)\n"
    "  --detach           Ctrl-C leaves the runs running here going on (their ends are\n"
    "                     recorded beside them for `status`) instead of stopping them\n\n"
    "Ctrl-C stops the runs running here (local), records them CANCELLED and plans the others\n"
    "again; a second Ctrl-C leaves at once. Runs on a cluster go on either way.\n\n"
    "exit codes: 0 every run completed and the report was printed; 1 some runs failed for\n"
    "good (the report still shows the rest) or the study is invalid; 2 wrong arguments;\n"
    "3 the scheduler is unavailable; 130 interrupted (Ctrl-C).";

// The scheduler names and options come from the registry.
std::string run_usage() {
  return std::string(kIntroduction) +
         sched::wrap_words("submit options: ",
                           "--scheduler " + sched::scheduler_choices("|") +
                               ", --system ID[:VARIANT] (repeatable), --campaign NAME|auto, "
                               "--results-dir DIR, --packed, " +
                               sched::scheduler_option_list() + " (see `scalestudy submit --help`)",
                           2) +
         "\n" + kClosing;
}

// After Ctrl-C: what happened to the runs, and how to go on. 130: ended by SIGINT, as
// shells report it.
int interrupted_exit(const common::InterruptWatch& interrupts, bool detached) {
  const char* what =
      interrupts.taken() > 1 || detached
          ? "left at once (the runs still going are named above; `scalestudy status` "
            "records how they end)"
          : "interrupted (Ctrl-C): the runs it ran here were stopped and recorded CANCELLED, "
            "runs on a cluster go on, and the runs not started are planned again; "
            "`scalestudy run` goes on from there";
  std::fprintf(stderr, "scalestudy run: %s\n", what);
  return 130;
}

int run_run(const std::vector<std::string>& args) {
  ArgSpec spec = submit_arg_spec();
  spec.value_options.insert(kReportValueOptions.begin(), kReportValueOptions.end());
  spec.flag_options.insert(kReportFlagOptions.begin(), kReportFlagOptions.end());
  spec.value_options.insert({"--timeout", "--poll-interval"});
  spec.flag_options.erase("--dry-run");
  spec.flag_options.insert("--detach");
  auto parsed = parse_args(args, spec);
  if (!parsed || parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy run: %s\n%s\n",
                 parsed ? "expected one STUDY.yaml" : parsed.status().message().c_str(),
                 run_usage().c_str());
    return kExitUsage;
  }
  campaign::WaitOptions wait;
  try {
    wait.timeout_s = std::stod(parsed->value_or("--timeout", "0"));
    wait.poll_interval_s = std::stod(parsed->value_or("--poll-interval", "5"));
  } catch (const std::exception&) {
    std::fprintf(stderr, "scalestudy run: --timeout and --poll-interval take seconds\n");
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  int exit_code = kExitOk;
  auto location = locate_study_yaml_or_explain("run", *parsed, results_dir, exit_code);
  if (!location) return exit_code;
  // Ctrl-C from here to the end of the wait is read, not suffered: before any thread starts.
  auto interrupts = common::InterruptWatch::open();
  if (!interrupts) {
    std::fprintf(stderr, "scalestudy run: %s\n", interrupts.status().message().c_str());
    return kExitEnvironment;
  }
  auto sessions = make_submit_sessions("run", *parsed, std::move(*location->study), results_dir,
                                       exit_code, interrupts->get());
  if (!sessions) return exit_code;
  const int submitted = submit_and_print("run", *sessions);
  const bool detached = parsed->has("--detach");
  if ((*interrupts)->taken() > 0) return interrupted_exit(**interrupts, detached);
  if (submitted == kExitEnvironment) return submitted;

  // The campaign's database (`--campaign`), which is the study's own without one.
  const std::string database_path =
      campaign::study_database_path(results_dir, campaign::storage_name(sessions->front().plan));
  auto state = campaign::StudyState::open_existing(database_path);
  if (!state) {
    std::fprintf(stderr, "scalestudy run: %s\n", state.status().message().c_str());
    return kExitFailure;
  }
  wait.resubmit = [&sessions]() { return submission::submit_sessions(*sessions).status(); };
  wait.on_progress = make_progress_printer();
  wait.interrupts = interrupts->get();
  const submission::SubmitSession& first = sessions->front();
  auto outcome =
      campaign::wait_study(*state, first.options.scheduler_context, wait, first.scheduler.get());
  if (!outcome) {
    std::fprintf(stderr, "scalestudy run: %s\n", outcome.status().message().c_str());
    return kExitEnvironment;
  }
  if (*outcome == campaign::WaitOutcome::kInterrupted) {
    return interrupted_exit(**interrupts, detached);
  }
  interrupts->reset();  // Ctrl-C acts as always again while the report is made
  if (*outcome == campaign::WaitOutcome::kTimedOut) {
    std::fprintf(stderr,
                 "scalestudy run: timed out with runs in flight; reporting what finished\n");
  }
  std::cout << std::endl;
  const int report_code = print_study_report("run", *parsed, database_path, results_dir);
  if (report_code != kExitOk) return report_code;
  return *outcome == campaign::WaitOutcome::kAllCompleted ? kExitOk : kExitFailure;
}

}  // namespace

extern const Command kRunCommand = {
    "run", "submit + wait + ingest + report: a whole study in one command", run_usage, run_run};

}  // namespace scalestudy::cli
