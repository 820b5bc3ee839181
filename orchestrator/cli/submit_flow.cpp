#include "orchestrator/cli/submit_flow.hpp"

#include <cstdio>
#include <iostream>

#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/param_check_report.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/submission/system_choice.hpp"
#include "orchestrator/submission/wave_sessions.hpp"

namespace scalestudy::cli {
namespace {

// What the user gave for the options the schedulers declare.
sched::SchedulerOptionValues scheduler_option_values(const ParsedArgs& parsed) {
  sched::SchedulerOptionValues values;
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      if (option.value_name.empty()) {
        if (parsed.has(option.flag)) values[option.flag] = "";
      } else if (auto value = parsed.value(option.flag)) {
        values[option.flag] = *value;
      }
    }
  }
  return values;
}

// Prints the parameter check's notes (and errors), the warnings and the failure of `setup`;
// its sessions, or nothing with `exit_code` set.
std::optional<std::vector<submission::SubmitSession>> sessions_or_explain(
    const char* command, submission::SubmitSetup setup, int& exit_code) {
  report_workload_param_check(command, setup.params);
  for (const auto& warning : setup.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (!setup.failure) return std::move(setup.sessions);
  if (setup.failure->kind != submission::SubmitFailure::Kind::kInvalidParams) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, setup.failure->status.message().c_str());
  }
  exit_code = exit_code_of(setup.failure->kind);
  return std::nullopt;
}

// Each line the submit logs, on stdout.
void print_line(const std::string& line) {
  std::cout << line << std::endl;
}

// One scheduler's outcome: what a dry run would submit, then the counts of its runs.
void print_submit_report(const submission::SubmitSession& session,
                         const campaign::SubmitReport& report) {
  const std::string& study_name = session.plan.study.name;
  const std::string stored = campaign::storage_name(session.plan);
  const std::string where = session.system.empty() ? "" : " on " + session.system;
  if (session.options.dry_run) {
    std::cout << "dry run: would submit " << report.would_submit.size() << " run(s) with "
              << session.scheduler_name << where << "\n";
    for (const auto& run_id : report.would_submit) {
      std::cout << "  " << run_id << "  "
                << campaign::run_out_dir(session.plan.results_dir, stored, run_id)
                << "/job.sbatch\n";
    }
  }
  std::cout << "study " << study_name << where << ": " << report.submitted.size() << " submitted, "
            << report.completed.size() << " completed, " << report.in_flight.size()
            << " in flight, " << report.exhausted.size() << " failed for good";
  if (!report.waiting.empty()) {
    std::cout << ", " << report.waiting.size() << " waiting for a submit slot";
  }
  std::cout << " (" << report.database_path << ")\n";
  for (const auto& error : report.errors) std::fprintf(stderr, "error: %s\n", error.c_str());
}

}  // namespace

int exit_code_of(submission::SubmitFailure::Kind kind) {
  switch (kind) {
    case submission::SubmitFailure::Kind::kInvalidParams:
    case submission::SubmitFailure::Kind::kRefused:
      return kExitFailure;
    case submission::SubmitFailure::Kind::kBadRequest:
      return kExitUsage;
    case submission::SubmitFailure::Kind::kUnavailable:
      return kExitEnvironment;
  }
  return kExitFailure;
}

ArgSpec submit_arg_spec() {
  ArgSpec spec{
      {"--scheduler", "--results-dir", "--max-gpu-hours", "--campaign", submission::kSystemOption},
      {"--dry-run", "--packed"}};
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      (option.value_name.empty() ? spec.flag_options : spec.value_options).insert(option.flag);
    }
  }
  return spec;
}

std::optional<std::vector<submission::SubmitSession>> make_submit_sessions(
    const char* command, const ParsedArgs& parsed, Study study, const std::string& results_dir,
    int& exit_code, common::InterruptWatch* interrupts) {
  submission::SubmitRequest request;
  request.study = std::move(study);
  request.results_dir = results_dir;
  request.scheduler = parsed.value("--scheduler");
  request.scheduler_options = scheduler_option_values(parsed);
  request.systems = parsed.values(submission::kSystemOption);
  request.campaign = parsed.value("--campaign");
  request.dry_run = parsed.has("--dry-run");
  request.packed = parsed.has("--packed");
  request.max_gpu_hours = parsed.value("--max-gpu-hours");
  request.log = print_line;
  request.interrupts = interrupts;
  request.detach = parsed.has("--detach");
  return sessions_or_explain(command, submission::make_submit_sessions(request), exit_code);
}

int submit_and_print(const char* command, std::vector<submission::SubmitSession>& sessions) {
  int exit_code = kExitOk;
  std::string database_path;
  for (submission::SubmitSession& session : sessions) {
    auto report = submission::submit_session(session);
    if (!report) {
      std::fprintf(stderr, "scalestudy %s: %s\n", command, report.status().message().c_str());
      return kExitEnvironment;
    }
    database_path = report->database_path;
    print_submit_report(session, *report);
    if (!report->errors.empty()) exit_code = kExitFailure;
  }
  if (auto state = campaign::StudyState::open_existing(database_path)) {
    if (auto progress = campaign::study_progress(*state)) {
      std::cout << campaign::progress_line(*progress) << "\n";
    }
  }
  return exit_code;
}

std::optional<std::vector<submission::SubmitSession>> make_wave_sessions(
    const char* command, campaign::StudyState& state, const std::string& results_dir,
    int& exit_code) {
  return sessions_or_explain(
      command, submission::make_wave_sessions(state, results_dir, print_line), exit_code);
}

}  // namespace scalestudy::cli
