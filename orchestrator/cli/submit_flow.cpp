#include "orchestrator/cli/submit_flow.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/workload_param_check.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/interference_risk.hpp"

namespace scalestudy::cli {

const std::set<std::string> kSubmitValueOptions = {"--scheduler", "--results-dir", "--max-parallel",
                                                   "--max-slots", "--max-gpu-hours"};
const std::set<std::string> kSubmitFlagOptions = {"--no-arrays", "--ordered", "--hold",
                                                  "--dry-run"};

namespace {

// `--max-gpu-hours H`: a number ≥ 0, when given.
Result<std::optional<double>> max_gpu_hours_option(const ParsedArgs& parsed) {
  auto text = parsed.value("--max-gpu-hours");
  if (!text) return std::optional<double>();
  char* end = nullptr;
  const double hours = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || hours < 0) {
    return Status::error("--max-gpu-hours takes a number ≥ 0, got '" + *text + "'");
  }
  return std::optional<double>(hours);
}

}  // namespace

std::optional<SubmitSession> make_submit_session(const char* command, const ParsedArgs& parsed,
                                                 const Study& study, const std::string& results_dir,
                                                 int& exit_code) {
  if (!report_workload_param_check(
          command, check_study_workload_params(study, campaign::executable_dir()))) {
    exit_code = kExitFailure;
    return std::nullopt;
  }
  auto max_parallel = parsed.int_value_or("--max-parallel", 1);
  auto max_slots = parsed.int_value_or("--max-slots", 0);
  if (!max_parallel || !max_slots || *max_parallel < 1 || *max_slots < 0) {
    std::fprintf(stderr, "scalestudy %s: --max-parallel and --max-slots take positive numbers\n",
                 command);
    exit_code = kExitUsage;
    return std::nullopt;
  }
  auto max_gpu_hours = max_gpu_hours_option(parsed);
  if (!max_gpu_hours) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, max_gpu_hours.status().message().c_str());
    exit_code = kExitUsage;
    return std::nullopt;
  }
  // Refused before anything is submitted.
  if (Status budget =
          check_budget(requested_cost(study.runs), study.budget_gpu_hours, *max_gpu_hours);
      !budget) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, budget.message().c_str());
    exit_code = kExitFailure;
    return std::nullopt;
  }
  auto faults = common::FaultInjector::from_environment();
  if (!faults) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, faults.status().message().c_str());
    exit_code = kExitUsage;
    return std::nullopt;
  }
  SubmitSession session;
  session.options.faults = *faults;
  sched::SchedulerOptions& options = session.options.scheduler_options;
  options.max_parallel_runs = *max_parallel;
  options.max_slots = *max_slots;
  // The local backend starts ranks through the torchrun-style launcher when it is built.
  const std::string launcher = campaign::executable_dir() + "/scalestudy-launch";
  if (std::filesystem::exists(launcher)) options.launcher_path = launcher;
  options.use_job_arrays = !parsed.has("--no-arrays");
  options.ordered = parsed.has("--ordered");
  options.array_throttle = study.array_throttle;
  options.array_script_dir =
      (std::filesystem::absolute(results_dir) / study.name / "arrays").string();
  if (parsed.has("--hold")) options.extra_sbatch_args.push_back("--hold");
  session.scheduler_name = parsed.value_or("--scheduler", sched::detect_scheduler());
  auto scheduler = sched::make_scheduler(session.scheduler_name, options);
  if (!scheduler) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, scheduler.status().message().c_str());
    exit_code = kExitEnvironment;
    return std::nullopt;
  }
  session.scheduler = std::move(*scheduler);
  session.options.dry_run = parsed.has("--dry-run");
  if (!session.options.dry_run) {
    if (Status reachable = session.scheduler->check_reachable(); !reachable) {
      std::fprintf(stderr, "scalestudy %s: %s\n", command, reachable.message().c_str());
      exit_code = kExitEnvironment;
      return std::nullopt;
    }
  }
  for (const auto& risk :
       interference_risks(study, {session.scheduler_name, options.max_parallel_runs,
                                  static_cast<int>(std::thread::hardware_concurrency())})) {
    std::fprintf(stderr, "warning: %s\n", risk.c_str());
  }
  const char* profiles_dir = std::getenv("SCALESTUDY_PROFILES_DIR");
  session.options.prepare = campaign::make_run_preparer(
      {campaign::executable_dir(),
       profiles_dir && *profiles_dir ? profiles_dir : SCALESTUDY_PROFILES_DIR});
  session.options.log = [](const std::string& line) { std::cout << line << std::endl; };
  session.plan = campaign::make_submit_plan(study, results_dir);
  return session;
}

int submit_and_print(const char* command, SubmitSession& session) {
  auto report = campaign::submit_study(session.plan, *session.scheduler, session.options);
  if (!report) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, report.status().message().c_str());
    return kExitEnvironment;
  }
  const std::string& study_name = session.plan.study.name;
  if (session.options.dry_run) {
    std::cout << "dry run: would submit " << report->would_submit.size() << " run(s) with "
              << session.scheduler_name << "\n";
    for (const auto& run_id : report->would_submit) {
      std::cout << "  " << run_id << "  "
                << campaign::run_out_dir(session.plan.results_dir, study_name, run_id)
                << "/job.sbatch\n";
    }
  }
  std::cout << "study " << study_name << ": " << report->submitted.size() << " submitted, "
            << report->completed.size() << " completed, " << report->in_flight.size()
            << " in flight, " << report->exhausted.size() << " failed for good ("
            << report->database_path << ")\n";
  for (const auto& error : report->errors) std::fprintf(stderr, "error: %s\n", error.c_str());
  if (auto state = campaign::StudyState::open_existing(report->database_path)) {
    if (auto progress = campaign::study_progress(*state)) {
      std::cout << campaign::progress_line(*progress) << "\n";
    }
  }
  return report->errors.empty() ? kExitOk : kExitFailure;
}

}  // namespace scalestudy::cli
