#include "orchestrator/cli/submit_flow.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "orchestrator/campaign/campaign_name.hpp"
#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/flag_description_cache.hpp"
#include "orchestrator/cli/packed_plan.hpp"
#include "orchestrator/cli/profiles_dir.hpp"
#include "orchestrator/cli/system_choice.hpp"
#include "orchestrator/cli/workload_param_check.hpp"
#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/interference_risk.hpp"

namespace scalestudy::cli {
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

// The scheduler's options, --packed and the campaign as given (`auto` resolved), for
// `wait` to submit later waves alike.
std::vector<std::string> choices_to_record(const ParsedArgs& parsed,
                                           const sched::SchedulerOptionValues& values,
                                           const std::string& campaign) {
  std::vector<std::string> options;
  if (!campaign.empty()) options.insert(options.end(), {"--campaign", campaign});
  for (const auto& [flag, value] : values) {
    options.push_back(flag);
    if (!value.empty()) options.push_back(value);
  }
  if (parsed.has("--packed")) options.push_back("--packed");
  if (auto scheduler = parsed.value("--scheduler")) {
    options.push_back("--scheduler");
    options.push_back(*scheduler);
  }
  for (const std::string& label : parsed.values(kSystemOption)) {
    options.push_back(kSystemOption);
    options.push_back(label);
  }
  return options;
}

// `allocation: packed` in the study, or `--packed`.
bool is_packed(const ParsedArgs& parsed, const Study& study) {
  return study.packed_allocation || parsed.has("--packed");
}

// The campaign `--campaign` names: "" without it; `auto` named from today's UTC date and the
// first workload binary's git commit (`commits`: binary path -> commit), else its content.
Result<std::string> campaign_of(const ParsedArgs& parsed, const Study& study,
                                const std::map<std::string, std::string>& commits) {
  auto given = parsed.value("--campaign");
  if (!given) return std::string();
  if (*given != "auto") {
    if (Status checked = campaign::check_campaign_name(*given); !checked) return checked;
    return *given;
  }
  std::string commit, content_key;
  if (!study.runs.empty()) {
    const std::string path =
        resolve_workload_binary(study.runs.front().workload, campaign::executable_dir());
    if (auto found = commits.find(path); found != commits.end()) commit = found->second;
    if (auto key = binary_content_key(path)) content_key = *key;
  }
  std::string date = common::utc_now_iso8601().substr(0, 10);  // YYYY-MM-DD
  date.erase(std::remove(date.begin(), date.end(), '-'), date.end());
  return campaign::auto_campaign_name(date, commit, content_key);
}

// The checks made before a scheduler is chosen: the workload parameters, every scheduler's
// options, that a packed sweep's allocations can start, the GPU-hour budget and the fault
// hook; and the campaign named. On error prints it and sets exit_code.
std::optional<common::FaultInjector> check_before_scheduling(
    const char* command, const ParsedArgs& parsed, const Study& study,
    const sched::SchedulerOptionValues& values, const PackingInputs* packing,
    std::string& campaign_name, int& exit_code) {
  auto fail = [&](const std::string& message, int code) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, message.c_str());
    exit_code = code;
    return std::nullopt;
  };
  const WorkloadParamCheck params = check_study_workload_params(study, campaign::executable_dir());
  if (!report_workload_param_check(command, params)) {
    exit_code = kExitFailure;
    return std::nullopt;
  }
  auto named = campaign_of(parsed, study, params.git_commits);
  if (!named) return fail(named.status().message(), kExitUsage);
  campaign_name = *named;
  if (Status options = sched::check_scheduler_options(values); !options) {
    return fail(options.message(), kExitUsage);
  }
  auto max_gpu_hours = max_gpu_hours_option(parsed);
  if (!max_gpu_hours) return fail(max_gpu_hours.status().message(), kExitUsage);
  // Refused before anything is submitted; a packed sweep asks for its allocations.
  RequestedCost cost = requested_cost(study.runs);
  if (packing != nullptr) {
    auto allocations = plan_study_allocations(study, *packing);
    if (!allocations) return fail(allocations.status().message(), kExitFailure);
    cost = sched::requested_packed_cost(*allocations);
  }
  if (Status budget = check_budget(cost, study.budget_gpu_hours, *max_gpu_hours); !budget) {
    return fail(budget.message(), kExitFailure);
  }
  auto faults = common::FaultInjector::from_environment();
  if (!faults) return fail(faults.status().message(), kExitUsage);
  return *faults;
}

// One scheduler's outcome: what a dry run would submit, then the counts of its runs.
void print_submit_report(const SubmitSession& session, const campaign::SubmitReport& report) {
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

// The runs one scheduler submits: a named system's runs go to its backend, configured
// with the system's own settings under the command line's; the other runs to --scheduler,
// else the backend detected. One share per system, so a packed allocation never mixes two
// partitions.
struct SchedulerShare {
  std::string scheduler;
  sched::SchedulerOptionValues values;
  std::string system;  // the named system's label; empty for runs without one
  std::set<std::string> run_ids;
};

Result<std::vector<SchedulerShare>> scheduler_shares(const ParsedArgs& parsed, const Study& study,
                                                     const sched::SchedulerOptionValues& values) {
  const std::optional<std::string> given = parsed.value("--scheduler");
  std::optional<std::string> detected;  // probed once, and only when a run needs it
  std::vector<SchedulerShare> shares;
  for (const RunSpec& run : study.runs) {
    SchedulerShare wanted{"", values, run.system.named ? run.system.label() : "", {}};
    if (!run.system.named) {
      if (!given && !detected) detected = sched::detect_scheduler();
      wanted.scheduler = given ? *given : *detected;
    } else {
      // A backend of the system's family may reach it: slurmrest for a slurm system.
      if (given && !sched::share_job_ids(run.system.scheduler, *given)) {
        return Status::error("--scheduler " + *given + " cannot submit to system " +
                             run.system.label() + ", whose scheduler is " + run.system.scheduler);
      }
      wanted.scheduler = given ? *given : run.system.scheduler;
      for (const auto& [key, value] : run.system.scheduler_settings) {
        wanted.values.emplace(sched::system_key_flag(key), value);
      }
    }
    auto same = std::find_if(shares.begin(), shares.end(), [&](const SchedulerShare& share) {
      return share.system == wanted.system && share.scheduler == wanted.scheduler;
    });
    if (same == shares.end()) same = shares.insert(shares.end(), std::move(wanted));
    same->run_ids.insert(run.run_id);
  }
  // A study without runs still records itself through one scheduler.
  if (shares.empty()) shares.push_back({given.value_or(sched::detect_scheduler()), values, "", {}});
  return shares;
}

// `study` with only the runs of `share`, for the checks that look at what one scheduler runs.
Study study_share(const Study& study, const SchedulerShare& share) {
  Study part = study;
  part.runs.clear();
  for (const RunSpec& run : study.runs) {
    if (share.run_ids.count(run.run_id)) part.runs.push_back(run);
  }
  return part;
}

// One scheduler made, reachable, and its share's interference risks printed.
std::optional<SubmitSession> make_share_session(
    const char* command, const ParsedArgs& parsed, const Study& study, const SchedulerShare& share,
    const sched::SchedulerOptionValues& command_line_values, bool several,
    const std::string& results_dir, const PackingInputs* packing, const std::string& campaign_name,
    const common::FaultInjector& faults, int& exit_code) {
  SubmitSession session;
  session.options.faults = faults;
  session.options.scheduler_options = choices_to_record(parsed, command_line_values, campaign_name);
  sched::SchedulerContext& context = session.options.scheduler_context;
  context.bin_dir = campaign::executable_dir();
  context.array_throttle = study.array_throttle;
  context.packed = is_packed(parsed, study);
  context.packed_concurrent = study.pack_concurrent;
  if (packing != nullptr) context.measured_run_s = packing->measured_run_s;
  context.array_script_dir = (std::filesystem::absolute(results_dir) /
                              campaign::campaign_storage_name(study.name, campaign_name) / "arrays")
                                 .string();
  session.scheduler_name = share.scheduler;
  session.system = share.system;
  auto scheduler = sched::make_scheduler(share.scheduler, context, share.values);
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
  const ExecutionSettings settings{
      session.scheduler->runs_on_this_host() ? RunPlacement::kThisHost : RunPlacement::kCluster,
      session.scheduler->max_parallel_runs(),
      static_cast<int>(std::thread::hardware_concurrency())};
  for (const auto& risk :
       interference_risks(several ? study_share(study, share) : study, settings)) {
    std::fprintf(stderr, "warning: %s\n", risk.c_str());
  }
  session.options.prepare = campaign::make_run_preparer(
      {campaign::executable_dir(), default_profiles_dir()}, *session.scheduler);
  session.options.log = [](const std::string& line) { std::cout << line << std::endl; };
  session.plan = campaign::make_submit_plan(study, results_dir, campaign_name);
  if (several) session.plan.share = share.run_ids;
  return session;
}

}  // namespace

ArgSpec submit_arg_spec() {
  ArgSpec spec{{"--scheduler", "--results-dir", "--max-gpu-hours", "--campaign", kSystemOption},
               {"--dry-run", "--packed"}};
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      (option.value_name.empty() ? spec.flag_options : spec.value_options).insert(option.flag);
    }
  }
  return spec;
}

std::optional<std::vector<SubmitSession>> make_submit_sessions(const char* command,
                                                               const ParsedArgs& parsed,
                                                               const Study& study,
                                                               const std::string& results_dir,
                                                               int& exit_code) {
  const sched::SchedulerOptionValues values = scheduler_option_values(parsed);
  std::optional<PackingInputs> packing;
  if (is_packed(parsed, study)) {
    packing = packing_inputs(study, results::load_measured_run_times(results_dir));
  }
  const PackingInputs* packing_given = packing ? &*packing : nullptr;
  std::string campaign_name;
  auto faults = check_before_scheduling(command, parsed, study, values, packing_given,
                                        campaign_name, exit_code);
  if (!faults) return std::nullopt;
  auto shares = scheduler_shares(parsed, study, values);
  if (!shares) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, shares.status().message().c_str());
    exit_code = kExitUsage;
    return std::nullopt;
  }
  std::vector<SubmitSession> sessions;
  for (const SchedulerShare& share : *shares) {
    auto session =
        make_share_session(command, parsed, study, share, values, shares->size() > 1, results_dir,
                           packing_given, campaign_name, *faults, exit_code);
    if (!session) return std::nullopt;
    sessions.push_back(std::move(*session));
  }
  // A backend that runs its jobs inside submit (local) returns when they end: the others'
  // jobs are queued first, so they run meanwhile.
  std::stable_sort(sessions.begin(), sessions.end(),
                   [](const SubmitSession& a, const SubmitSession& b) {
                     return !a.scheduler->runs_inside_submit() && b.scheduler->runs_inside_submit();
                   });
  return sessions;
}

Status submit_sessions(std::vector<SubmitSession>& sessions) {
  for (SubmitSession& session : sessions) {
    auto report = campaign::submit_study(session.plan, *session.scheduler, session.options);
    if (!report) return report.status();
  }
  return Status::ok();
}

int submit_and_print(const char* command, std::vector<SubmitSession>& sessions) {
  int exit_code = kExitOk;
  std::string database_path;
  for (SubmitSession& session : sessions) {
    auto report = campaign::submit_study(session.plan, *session.scheduler, session.options);
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

std::optional<std::vector<SubmitSession>> make_wave_sessions(const char* command,
                                                             campaign::StudyState& state,
                                                             const std::string& results_dir,
                                                             int& exit_code) {
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, message.c_str());
    exit_code = kExitFailure;
    return std::nullopt;
  };
  auto study = state.study();
  if (!study || !*study) return fail("the study database records no study");
  // As the last submit was told (its options hold --scheduler when it was given); a
  // database from before choices were recorded: the scheduler its runs went to. A study
  // on named systems leaves each system its own scheduler; otherwise the scheduler the
  // last submit used is named, so a detection that answers differently now changes nothing.
  auto choices = state.submit_choices();
  if (!choices) return fail(choices.status().message());
  std::vector<std::string> options;
  std::string last_scheduler;
  if (*choices) {
    options = (*choices)->options;
    last_scheduler = (*choices)->scheduler;
  } else {
    auto runs = state.runs();
    if (!runs) return fail(runs.status().message());
    last_scheduler = sched::detect_scheduler();
    for (const campaign::RunRecord& run : *runs) {
      if (!run.scheduler.empty()) last_scheduler = run.scheduler;
    }
  }
  auto parsed = parse_args(options, submit_arg_spec());
  if (!parsed) return fail(parsed.status().message());
  auto location =
      campaign::locate_study((*study)->source_path, results_dir, system_choice(*parsed));
  if (!location || !location->study) {
    return fail("runs wait for a later wave, but the study YAML " + (*study)->source_path +
                " cannot be loaded to submit them" +
                (location ? "" : ": " + location.status().message()));
  }
  if (!parsed->has("--scheduler") && location->study->systems.empty()) {
    options.insert(options.begin(), {"--scheduler", last_scheduler});
    parsed = parse_args(options, submit_arg_spec());
    if (!parsed) return fail(parsed.status().message());
  }
  auto sessions = make_submit_sessions(command, *parsed, *location->study, results_dir, exit_code);
  if (sessions) {
    for (SubmitSession& session : *sessions) session.options.planned_only = true;
  }
  return sessions;
}

}  // namespace scalestudy::cli
