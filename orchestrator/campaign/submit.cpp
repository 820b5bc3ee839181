#include "orchestrator/campaign/submit.hpp"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "orchestrator/campaign/job_directory.hpp"
#include "orchestrator/campaign/run_directory_outcome.hpp"
#include "orchestrator/common/results_path.hpp"
#include "orchestrator/study/run_spec_names.hpp"

namespace scalestudy::campaign {
namespace {

std::string report_json(const StudyReportSettings& report) {
  nlohmann::json json = nlohmann::json::object();
  if (report.target_gain_pct) json["target_gain_pct"] = *report.target_gain_pct;
  if (!report.thresholds.empty()) json["thresholds"] = report.thresholds;
  return json.dump();
}

bool same_scheduler_family(const std::string& a, const std::string& b) {
  auto slurm_family = [](const std::string& name) {
    return name == "slurm" || name == "slurmrest";
  };
  return a == b || (slurm_family(a) && slurm_family(b));
}

}  // namespace

bool is_in_flight(const std::string& run_state) {
  return run_state == kStateSubmitted || run_state == "PENDING" || run_state == "RUNNING";
}

std::string study_database_path(const std::string& results_dir, const std::string& study_name) {
  return (std::filesystem::path(results_dir) / (study_name + ".sqlite")).string();
}

std::string run_out_dir(const std::string& results_dir, const std::string& study_name,
                        const std::string& run_id) {
  return (std::filesystem::absolute(results_dir) / study_name / "runs" / run_id).string();
}

SubmitPlan make_submit_plan(const Study& study, const std::string& results_dir) {
  SubmitPlan plan;
  plan.study.name = study.name;
  plan.study.kind = study_kind_name(study.kind);
  plan.study.source_path = study.source_path;
  plan.study.baseline_json = nlohmann::json(study.baseline).dump();
  plan.study.report_json = report_json(study.report);
  plan.study.max_attempts = study.max_attempts;
  plan.runs = study.runs;
  plan.results_dir = results_dir;
  return plan;
}

Status reconcile_study(StudyState& state, const sched::SchedulerOptions& options,
                       sched::Scheduler* preferred) {
  auto runs = state.runs();
  if (!runs) return runs.status();
  std::map<std::string, std::vector<const RunRecord*>> by_scheduler;
  for (const RunRecord& run : *runs) {
    if (is_in_flight(run.state) && !run.job_id.empty()) by_scheduler[run.scheduler].push_back(&run);
  }
  for (const auto& [name, members] : by_scheduler) {
    sched::Scheduler* poller = preferred;
    std::unique_ptr<sched::Scheduler> other;
    if (preferred == nullptr || !same_scheduler_family(name, preferred->name())) {
      auto made = sched::make_scheduler(name, options);
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
      // A run whose end nobody saw (an interrupted local submitter) may have finished
      // well: its directory says so, and it must not run again.
      if (!status.exit_code && status.state == common::JobState::kFailed &&
          run_directory_shows_completed(run->out_dir, run->world_size)) {
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
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  common::FaultInjector faults = options.faults;
  SubmitReport report;
  report.database_path = study_database_path(plan.results_dir, plan.study.name);
  auto state = StudyState::open(report.database_path);
  if (!state) return state.status();

  std::map<std::string, const RunSpec*> spec_of;
  std::vector<PlannedRun> planned;
  for (const RunSpec& spec : plan.runs) {
    spec_of[spec.run_id] = &spec;
    planned.push_back({spec, common::stored_run_dir(plan.study.name, spec.run_id)});
  }
  if (Status saved = state->save_study(plan.study); !saved) return saved;
  if (Status stored = state->plan_runs(planned); !stored) return stored;
  if (Status reconciled = reconcile_study(*state, options.scheduler_options, &scheduler);
      !reconciled) {
    return reconciled.with_context("reconciling run states");
  }

  std::vector<std::string> claimed;
  const std::string token = make_claim_token();
  if (options.dry_run) {
    auto runs = state->runs();
    if (!runs) return runs.status();
    for (const RunRecord& run : *runs) {
      auto job_state = common::parse_job_state(run.state);
      bool wants = run.state == kStatePlanned || (job_state && common::is_retryable(*job_state));
      if (wants && run.attempts < plan.study.max_attempts) claimed.push_back(run.run_id);
    }
    report.would_submit = claimed;
  } else {
    auto claim = state->claim_runs(plan.study.max_attempts, token);
    if (!claim) return claim.status();
    claimed = std::move(*claim);
    faults.reached("submit.claimed");
  }

  std::vector<sched::PreparedRun> prepared;
  for (const std::string& run_id : claimed) {
    const std::string out_dir = run_out_dir(plan.results_dir, plan.study.name, run_id);
    Status directory = prepare_job_directory(out_dir, scheduler.job_user());
    Result<sched::PreparedRun> run = directory ? options.prepare(*spec_of.at(run_id), out_dir)
                                               : Result<sched::PreparedRun>(directory);
    if (!run) {
      report.errors.push_back("run " + run_id + ": " + run.status().message());
      if (!options.dry_run) state->release_claim(run_id, token, run.status().message());
      continue;
    }
    prepared.push_back(std::move(*run));
  }
  // Job arrays write their wrapper's output next to the wrapper.
  const std::string& array_dir = options.scheduler_options.array_script_dir;
  if (!options.dry_run && !prepared.empty() && !array_dir.empty()) {
    if (Status ready = prepare_job_directory(array_dir, scheduler.job_user()); !ready) {
      for (const sched::PreparedRun& run : prepared) {
        state->release_claim(run.spec.run_id, token, ready.message());
        report.errors.push_back("run " + run.spec.run_id + ": " + ready.message());
      }
      prepared.clear();
    }
  }
  if (!options.dry_run) faults.reached("submit.prepared");

  if (!options.dry_run && !prepared.empty()) {
    log("submitting " + std::to_string(prepared.size()) + " run(s) with " + scheduler.name());
    Status record_error;
    std::set<std::string> submitted_ids;
    sched::SubmitCallbacks callbacks;
    std::set<std::string> recorded_before_launch;
    callbacks.launching = [&](const sched::Submission& submission) {
      Status recorded = state->record_submission(submission, scheduler.name(), token);
      if (recorded) {
        recorded_before_launch.insert(submission.run_id);
        faults.reached("submit.recorded");
      }
      return recorded;
    };
    callbacks.submitted = [&](const sched::Submission& submission) {
      submitted_ids.insert(submission.run_id);
      report.submitted.push_back(submission);
      if (recorded_before_launch.count(submission.run_id) == 0) {
        Status recorded = state->record_submission(submission, scheduler.name(), token);
        if (!recorded && record_error.is_ok()) record_error = recorded;
        if (recorded) faults.reached("submit.recorded");
      }
      log("  " + submission.run_id + " -> " + submission.job_id);
      faults.reached("submit.launched");
    };
    callbacks.finished = [&](const sched::Submission& submission, const common::JobStatus& status) {
      Status recorded = state->record_job_status(submission.run_id, submission.job_id, status);
      if (!recorded && record_error.is_ok()) record_error = recorded;
      log("  " + submission.run_id + " " + to_string(status.state) +
          (status.reason.empty() ? "" : ": " + status.reason));
      faults.reached("submit.finished");
    };
    auto submitted = scheduler.submit(prepared, callbacks);
    for (const sched::PreparedRun& run : prepared) {
      if (submitted_ids.count(run.spec.run_id) != 0) continue;
      std::string why = submitted ? "not submitted" : submitted.status().message();
      state->release_claim(run.spec.run_id, token, why);
      report.errors.push_back("run " + run.spec.run_id + ": " + why);
    }
    if (!record_error.is_ok()) return record_error;
  }

  auto runs = state->runs();
  if (!runs) return runs.status();
  std::set<std::string> claimed_ids(claimed.begin(), claimed.end());
  for (const RunRecord& run : *runs) {
    if (run.state == "COMPLETED") {
      report.completed.push_back(run.run_id);
    } else if (is_exhausted(run, plan.study.max_attempts)) {
      report.exhausted.push_back(run.run_id);
    } else if (claimed_ids.count(run.run_id) == 0 &&
               (is_in_flight(run.state) || run.state == kStateSubmitting)) {
      report.in_flight.push_back(run.run_id);
    }
  }
  return report;
}

}  // namespace scalestudy::campaign
