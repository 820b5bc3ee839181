#include "orchestrator/submission/submit_sessions.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "orchestrator/campaign/campaign_name.hpp"
#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/interference_risk.hpp"
#include "orchestrator/submission/flag_description_cache.hpp"
#include "orchestrator/submission/packed_plan.hpp"
#include "orchestrator/submission/profiles_dir.hpp"
#include "orchestrator/submission/recorded_choices.hpp"
#include "orchestrator/submission/results_folder_check.hpp"
#include "orchestrator/submission/scheduler_shares.hpp"

namespace scalestudy::submission {
namespace {

using Kind = SubmitFailure::Kind;

// `allocation: packed` in the study, or asked for.
bool is_packed(const SubmitRequest& request) {
  return request.study.packed_allocation || request.packed;
}

// `--max-gpu-hours H`: a number ≥ 0, when given.
Result<std::optional<double>> max_gpu_hours_option(const std::optional<std::string>& text) {
  if (!text) return std::optional<double>();
  char* end = nullptr;
  const double hours = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || hours < 0) {
    return Status::error("--max-gpu-hours takes a number ≥ 0, got '" + *text + "'");
  }
  return std::optional<double>(hours);
}

// The campaign the request names: "" without one; `auto` named from today's UTC date and the
// first workload binary's git commit (`commits`: binary path -> commit), else its content.
Result<std::string> campaign_of(const SubmitRequest& request,
                                const std::map<std::string, std::string>& commits) {
  if (!request.campaign) return std::string();
  const std::string& given = *request.campaign;
  if (given != "auto") {
    if (Status checked = campaign::check_campaign_name(given); !checked) return checked;
    return given;
  }
  const Study& study = request.study;
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

// The checks made before a scheduler is chosen, in this order: the workload parameters, the
// campaign named, every scheduler's options, the GPU-hour cap, that a packed sweep's
// allocations can start, the GPU-hour budget and the fault hook. On error sets setup.failure.
std::optional<common::FaultInjector> check_before_scheduling(const SubmitRequest& request,
                                                             const PackingInputs* packing,
                                                             std::string& campaign_name,
                                                             SubmitSetup& setup) {
  auto fail = [&](Kind kind, const Status& status) {
    setup.failure = SubmitFailure{kind, status};
    return std::nullopt;
  };
  const Study& study = request.study;
  setup.params = check_study_workload_params(study, campaign::executable_dir());
  if (!setup.params.errors) return fail(Kind::kInvalidParams, setup.params.errors);
  auto named = campaign_of(request, setup.params.git_commits);
  if (!named) return fail(Kind::kBadRequest, named.status());
  campaign_name = *named;
  if (Status options = sched::check_scheduler_options(request.scheduler_options); !options) {
    return fail(Kind::kBadRequest, options);
  }
  auto max_gpu_hours = max_gpu_hours_option(request.max_gpu_hours);
  if (!max_gpu_hours) return fail(Kind::kBadRequest, max_gpu_hours.status());
  // Refused before anything is submitted; a packed sweep asks for its allocations.
  RequestedCost cost = requested_cost(study.runs);
  if (packing != nullptr) {
    auto allocations = plan_study_allocations(study, *packing);
    if (!allocations) return fail(Kind::kRefused, allocations.status());
    cost = sched::requested_packed_cost(*allocations);
  }
  if (Status budget = check_budget(cost, study.budget_gpu_hours, *max_gpu_hours); !budget) {
    return fail(Kind::kRefused, budget);
  }
  auto faults = common::FaultInjector::from_environment();
  if (!faults) return fail(Kind::kBadRequest, faults.status());
  return *faults;
}

// One scheduler made, reachable, and its share's interference risks added to the warnings.
std::optional<SubmitSession> make_share_session(const SubmitRequest& request,
                                                const SchedulerShare& share, bool several,
                                                const PackingInputs* packing,
                                                const std::string& campaign_name,
                                                const common::FaultInjector& faults,
                                                SubmitSetup& setup) {
  const Study& study = request.study;
  SubmitSession session;
  session.options.faults = faults;
  session.options.scheduler_options = recorded_choices(request, campaign_name);
  session.options.planned_only = request.planned_only;
  sched::SchedulerContext& context = session.options.scheduler_context;
  context.bin_dir = campaign::executable_dir();
  context.array_throttle = study.array_throttle;
  context.packed = is_packed(request);
  context.packed_concurrent = study.pack_concurrent;
  context.interrupts = request.interrupts;
  context.detach_on_interrupt = request.detach;
  if (packing != nullptr) context.measured_run_s = packing->measured_run_s;
  context.array_script_dir = (std::filesystem::absolute(request.results_dir) /
                              campaign::campaign_storage_name(study.name, campaign_name) / "arrays")
                                 .string();
  session.scheduler_name = share.scheduler;
  session.system = share.system;
  auto scheduler = sched::make_scheduler(share.scheduler, context, share.values);
  if (!scheduler) {
    setup.failure = SubmitFailure{Kind::kUnavailable, scheduler.status()};
    return std::nullopt;
  }
  session.scheduler = std::move(*scheduler);
  session.options.dry_run = request.dry_run;
  if (!session.options.dry_run) {
    if (Status reachable = session.scheduler->check_reachable(); !reachable) {
      setup.failure = SubmitFailure{Kind::kUnavailable, reachable};
      return std::nullopt;
    }
  }
  const ExecutionSettings settings{
      session.scheduler->runs_on_this_host() ? RunPlacement::kThisHost : RunPlacement::kCluster,
      session.scheduler->max_parallel_runs(),
      static_cast<int>(std::thread::hardware_concurrency())};
  const Study& shared = several ? study_share(study, share) : study;
  for (auto& risk : interference_risks(shared, settings)) setup.warnings.push_back(std::move(risk));
  if (settings.placement == RunPlacement::kCluster && !request.dry_run) {
    int widest_nodes = 1;
    for (const RunSpec& spec : shared.runs) widest_nodes = std::max(widest_nodes, spec.nodes);
    if (auto warning = results_folder_warning(request.results_dir, widest_nodes)) {
      setup.warnings.push_back(std::move(*warning));
    }
  }
  session.options.prepare = campaign::make_run_preparer(
      {campaign::executable_dir(), default_profiles_dir()}, *session.scheduler);
  session.options.log = request.log;
  session.plan = campaign::make_submit_plan(study, request.results_dir, campaign_name);
  if (several) session.plan.share = share.run_ids;
  return session;
}

}  // namespace

SubmitSetup make_submit_sessions(const SubmitRequest& request) {
  SubmitSetup setup;
  std::optional<PackingInputs> packing;
  if (is_packed(request)) {
    packing = packing_inputs(request.study, results::load_measured_run_times(request.results_dir));
  }
  const PackingInputs* packing_given = packing ? &*packing : nullptr;
  std::string campaign_name;
  auto faults = check_before_scheduling(request, packing_given, campaign_name, setup);
  if (!faults) return setup;
  auto shares = scheduler_shares(request.study, request.scheduler, request.scheduler_options);
  if (!shares) {
    setup.failure = SubmitFailure{Kind::kBadRequest, shares.status()};
    return setup;
  }
  for (const SchedulerShare& share : *shares) {
    auto session = make_share_session(request, share, shares->size() > 1, packing_given,
                                      campaign_name, *faults, setup);
    if (!session) {
      setup.sessions.clear();
      return setup;
    }
    setup.sessions.push_back(std::move(*session));
  }
  // A backend that runs its jobs inside submit (local) returns when they end: the others'
  // jobs are queued first, so they run meanwhile.
  std::stable_sort(setup.sessions.begin(), setup.sessions.end(),
                   [](const SubmitSession& a, const SubmitSession& b) {
                     return !a.scheduler->runs_inside_submit() && b.scheduler->runs_inside_submit();
                   });
  return setup;
}

Result<campaign::SubmitReport> submit_session(SubmitSession& session) {
  return campaign::submit_study(session.plan, *session.scheduler, session.options);
}

Result<std::vector<campaign::SubmitReport>> submit_sessions(std::vector<SubmitSession>& sessions) {
  std::vector<campaign::SubmitReport> reports;
  for (SubmitSession& session : sessions) {
    auto report = submit_session(session);
    if (!report) return report.status();
    reports.push_back(std::move(*report));
  }
  return reports;
}

}  // namespace scalestudy::submission
