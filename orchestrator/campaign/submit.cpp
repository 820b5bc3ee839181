#include "orchestrator/campaign/submit.hpp"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/core/run_layout.hpp"
#include "orchestrator/campaign/campaign_name.hpp"
#include "orchestrator/campaign/claim_lease.hpp"
#include "orchestrator/campaign/job_directory.hpp"
#include "orchestrator/campaign/launch_prepared.hpp"
#include "orchestrator/campaign/run_directory_outcome.hpp"
#include "orchestrator/campaign/run_scheduler.hpp"
#include "orchestrator/sched/packed_allocation.hpp"
#include "orchestrator/sched/packed_run_marks.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/study/run_spec_names.hpp"

namespace scalestudy::campaign {
namespace {

// The report's settings, and the study's systems in its order (the report's first system
// is the one the others are compared with).
std::string report_json(const Study& study) {
  nlohmann::json json = nlohmann::json::object();
  if (study.report.target_gain_pct) json["target_gain_pct"] = *study.report.target_gain_pct;
  if (!study.report.thresholds.empty()) json["thresholds"] = study.report.thresholds;
  if (!study.report.throughput_unit.empty()) json["throughput_unit"] = study.report.throughput_unit;
  if (!study.report.tokens_per_sample.empty()) {
    json["tokens_per_sample"] = study.report.tokens_per_sample;
  }
  if (!study.systems.empty()) json["systems"] = study.systems;
  return json.dump();
}

bool in_share(const SubmitPlan& plan, const std::string& run_id) {
  return !plan.share || plan.share->count(run_id) != 0;
}

// Records the study and its planned runs, then reconciles the runs in flight.
Status record_plan(StudyState& state, const SubmitPlan& plan, sched::Scheduler& scheduler,
                   const SubmitOptions& options) {
  std::vector<PlannedRun> planned;
  for (const RunSpec& spec : plan.runs) {
    planned.push_back({spec, run_layout::study_run_dir(storage_name(plan), spec.run_id)});
  }
  if (Status saved = state.save_study(plan.study); !saved) return saved;
  if (Status saved = state.save_campaign(plan.campaign); !saved) return saved;
  if (!options.dry_run && !options.planned_only) {
    if (Status saved = state.save_submit_choices({scheduler.name(), options.scheduler_options});
        !saved) {
      return saved;
    }
  }
  if (Status stored = state.plan_runs(planned); !stored) return stored;
  if (Status reconciled = reconcile_study(state, options.scheduler_context, &scheduler);
      !reconciled) {
    return reconciled.with_context("reconciling run states");
  }
  return Status::ok();
}

// The runs this call submits: claimed under `token`, or in a dry run the ones a submit
// would claim (report.would_submit), nothing claimed.
Result<std::vector<std::string>> claim_for_submit(StudyState& state, const SubmitPlan& plan,
                                                  const SubmitOptions& options,
                                                  const std::string& token,
                                                  common::FaultInjector& faults,
                                                  SubmitReport& report) {
  if (!options.dry_run) {
    auto claim = state.claim_runs(plan.study.max_attempts, plan.study.retry, token,
                                  options.planned_only, plan.share ? &*plan.share : nullptr);
    if (claim) faults.reached("submit.claimed");
    return claim;
  }
  auto runs = state.runs();
  if (!runs) return runs.status();
  std::vector<std::string> claimed;
  for (const RunRecord& run : *runs) {
    if (!in_share(plan, run.run_id)) continue;
    const bool wants = run.state == kStatePlanned
                           ? charged_attempts(run.attempts, run.failures) < plan.study.max_attempts
                           : wants_retry(run, plan.study.max_attempts, plan.study.retry);
    if (wants) claimed.push_back(run.run_id);
  }
  report.would_submit = claimed;
  return claimed;
}

// The run's spec for its next attempt: the nodes its node and hang failures ran on (and,
// when the policy says so, every flagged node) left out; the policy's hang watchdog.
Result<RunSpec> spec_for_attempt(StudyState& state, const SubmitPlan& plan, const RunSpec& spec) {
  auto excluded = state.nodes_to_exclude(spec.run_id, plan.study.retry.exclude_flagged_nodes);
  if (!excluded) return excluded.status();
  RunSpec attempt = spec;
  attempt.slurm.exclude_nodes = std::move(*excluded);
  attempt.slurm.hang_after_s = plan.study.retry.hang_after_s;
  return attempt;
}

// Each claimed run's folder and what its scheduler will execute; a run that cannot be
// prepared is an error in the report and its claim is released.
std::vector<sched::PreparedRun> prepare_claimed(StudyState& state, const SubmitPlan& plan,
                                                const std::vector<std::string>& claimed,
                                                sched::Scheduler& scheduler,
                                                const SubmitOptions& options,
                                                const std::string& token, SubmitReport& report) {
  std::map<std::string, const RunSpec*> spec_of;
  for (const RunSpec& spec : plan.runs) spec_of[spec.run_id] = &spec;
  std::vector<sched::PreparedRun> prepared;
  for (const std::string& run_id : claimed) {
    const std::string out_dir = run_out_dir(plan.results_dir, storage_name(plan), run_id);
    Status directory = prepare_job_directory(out_dir, scheduler.job_user());
    Result<RunSpec> spec =
        directory ? spec_for_attempt(state, plan, *spec_of.at(run_id)) : Result<RunSpec>(directory);
    Result<sched::PreparedRun> run =
        spec ? options.prepare(*spec, out_dir) : Result<sched::PreparedRun>(spec.status());
    if (!run) {
      report.errors.push_back("run " + run_id + ": " + run.status().message());
      if (!options.dry_run) state.release_claim(run_id, token, run.status().message());
      continue;
    }
    prepared.push_back(std::move(*run));
  }
  // Job arrays write their wrapper's output next to the wrapper.
  const std::string& array_dir = options.scheduler_context.array_script_dir;
  if (!options.dry_run && !prepared.empty() && !array_dir.empty()) {
    if (Status ready = prepare_job_directory(array_dir, scheduler.job_user()); !ready) {
      for (const sched::PreparedRun& run : prepared) {
        state.release_claim(run.spec.run_id, token, ready.message());
        report.errors.push_back("run " + run.spec.run_id + ": " + ready.message());
      }
      prepared.clear();
    }
  }
  return prepared;
}

// Sorts every run of the plan's share into completed, failed for good, or in flight elsewhere.
Status summarise(StudyState& state, const SubmitPlan& plan, const std::vector<std::string>& claimed,
                 SubmitReport& report) {
  auto runs = state.runs();
  if (!runs) return runs.status();
  std::set<std::string> claimed_ids(claimed.begin(), claimed.end());
  for (const RunRecord& run : *runs) {
    if (!in_share(plan, run.run_id)) continue;
    if (run.state == "COMPLETED") {
      report.completed.push_back(run.run_id);
    } else if (is_exhausted(run, plan.study.max_attempts, plan.study.retry)) {
      report.exhausted.push_back(run.run_id);
    } else if (claimed_ids.count(run.run_id) == 0 &&
               (is_in_flight(run.state) || run.state == kStateSubmitting)) {
      report.in_flight.push_back(run.run_id);
    }
  }
  return Status::ok();
}

}  // namespace

std::string study_database_path(const std::string& results_dir, const std::string& study_name) {
  return (std::filesystem::path(results_dir) / (study_name + ".sqlite")).string();
}

std::string run_out_dir(const std::string& results_dir, const std::string& study_name,
                        const std::string& run_id) {
  return run_layout::run_dir(std::filesystem::absolute(results_dir).string(), study_name, run_id);
}

std::string storage_name(const SubmitPlan& plan) {
  return campaign_storage_name(plan.study.name, plan.campaign);
}

SubmitPlan make_submit_plan(const Study& study, const std::string& results_dir,
                            const std::string& campaign) {
  SubmitPlan plan;
  plan.campaign = campaign;
  plan.study.name = study.name;
  plan.study.kind = study_kind_name(study.kind);
  plan.study.source_path = study.source_path;
  plan.study.baseline_json = nlohmann::json(study.baseline).dump();
  plan.study.report_json = report_json(study);
  plan.study.max_attempts = study.max_attempts;
  plan.study.retry = study.retry;
  plan.runs = study.runs;
  plan.results_dir = results_dir;
  return plan;
}

Status reconcile_study(StudyState& state, const sched::SchedulerContext& context,
                       sched::Scheduler* preferred) {
  auto runs = state.runs();
  if (!runs) return runs.status();
  std::map<std::string, std::vector<const RunRecord*>> by_scheduler;
  for (const RunRecord& run : *runs) {
    if (!is_in_flight(run.state) || run.job_id.empty()) continue;
    // Recorded, so marked: its allocation waits for the mark of a run whose submitter died
    // between the two. A mark that cannot be written fails the run (its allocation would
    // never start it, and hand the attempt back with each one).
    if (sched::is_packed_job_id(run.job_id)) {
      if (Status marked = sched::mark_packed_run_recorded(run.out_dir, run.job_id); !marked) {
        Status failed =
            state.record_job_status(run.run_id, run.job_id, sched::packed_run_unmarked(marked));
        if (!failed) return failed;
        continue;
      }
    }
    by_scheduler[run_scheduler_key(run)].push_back(&run);
  }
  for (const auto& [key, members] : by_scheduler) {
    const RunRecord& first = *members.front();
    const std::string& name = first.scheduler;
    sched::Scheduler* poller = preferred;
    std::unique_ptr<sched::Scheduler> other;
    if (preferred == nullptr || !first.scheduler_settings.empty() ||
        !sched::share_job_ids(name, preferred->name())) {
      auto made = sched::make_scheduler(name, context, run_scheduler_values(first));
      if (!made) return made.status().with_context("runs submitted with " + name);
      other = std::move(*made);
      poller = other.get();
    }
    std::vector<std::string> job_ids;
    for (const RunRecord* run : members) job_ids.push_back(run->job_id);
    auto states = poller->poll(job_ids);
    if (!states) return states.status();
    for (const RunRecord* run : members) {
      auto found = states->find(run->job_id);
      if (found == states->end()) continue;
      common::JobStatus status = found->second;
      // A packed run accounting lists no step of: its marks say whether it ran, and
      // whether not running costs it an attempt.
      if (sched::is_packed_job_id(run->job_id)) {
        status = sched::settle_packed_run_status(
            status, sched::read_packed_run_marks(run->out_dir, run->job_id));
      }
      // A run whose end nobody saw (its submitter ran it and was killed or left): what its
      // launcher recorded beside it says how it ended; else its directory may show it
      // finished well. Either way it must not run again for nothing.
      const bool unseen = !status.exit_code && status.state == common::JobState::kFailed;
      if (auto recorded = unseen ? poller->recorded_end(run->job_id, run->out_dir) : std::nullopt) {
        status = *recorded;
        if (status.state == common::JobState::kCompleted) {
          status.reason = "completed while no scalestudy was watching (its end recorded beside it)";
        }
      } else if (unseen && run_directory_shows_completed(run->out_dir, run->world_size)) {
        status = {common::JobState::kCompleted, 0, "completed while no scalestudy was watching"};
      }
      if (Status recorded = state.record_job_status(run->run_id, run->job_id, status); !recorded) {
        return recorded;
      }
    }
  }
  return Status::ok();
}

Result<SubmitReport> submit_study(const SubmitPlan& plan, sched::Scheduler& scheduler,
                                  const SubmitOptions& options) {
  common::FaultInjector faults = options.faults;
  SubmitReport report;
  report.database_path = study_database_path(plan.results_dir, storage_name(plan));
  auto state = StudyState::open(report.database_path);
  if (!state) return state.status();
  if (Status recorded = record_plan(*state, plan, scheduler, options); !recorded) return recorded;

  const ClaimLease lease(report.database_path);
  const std::string& token = lease.token();
  auto claimed = claim_for_submit(*state, plan, options, token, faults, report);
  if (!claimed) return claimed.status();
  std::vector<sched::PreparedRun> prepared =
      prepare_claimed(*state, plan, *claimed, scheduler, options, token, report);
  if (!options.dry_run) faults.reached("submit.prepared");

  if (!options.dry_run && !prepared.empty()) {
    auto launched = launch_prepared(*state, scheduler, prepared, token, {options.log, &faults});
    if (!launched) return launched.status();
    report.submitted = std::move(launched->submitted);
    report.waiting = std::move(launched->waiting);
    report.errors.insert(report.errors.end(), launched->errors.begin(), launched->errors.end());
  }
  if (Status summarised = summarise(*state, plan, *claimed, report); !summarised) {
    return summarised;
  }
  if (const std::string failures = lease.renewal_failures(); !failures.empty() && options.log) {
    options.log("warning: " + failures + " (a claim not renewed for " +
                std::to_string(kClaimLease.count() / 60) +
                " minutes may be taken over by a submit on another host)");
  }
  return report;
}

}  // namespace scalestudy::campaign
