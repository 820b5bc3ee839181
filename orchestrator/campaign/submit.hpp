// submit_study: the idempotent heart of `scalestudy submit` (and of `run`). It records the
// study and its planned runs in results/<study>.sqlite, reconciles the states of runs in
// flight with their scheduler, claims (in one BEGIN IMMEDIATE transaction) every run that
// needs a submission — never submitted, or finished without success with attempts left —
// prepares them (Scheduler::prepare: job script, command line) and hands them to it,
// recording each job id the moment it exists (launch_prepared.hpp). Completed runs are
// skipped; pending and running ones are left alone; two concurrent submits never submit a
// run twice. With a scheduler that runs jobs inside submit (Scheduler::runs_inside_submit)
// the call returns only when its runs have finished. Functions; callers own the StudyState
// and Scheduler.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/common/fault_injection.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_options.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::campaign {

struct SubmitPlan {
  StudyRecord study;
  std::vector<RunSpec> runs;  // every run of the study: all are recorded
  std::string results_dir;    // the database is <results_dir>/<storage_name()>.sqlite
  std::string campaign;       // campaign_name.hpp; empty: the default one
  // The runs this plan's scheduler submits and reports on, when the study's runs go to
  // several schedulers (systems); unset: all.
  std::optional<std::set<std::string>> share;
};

SubmitPlan make_submit_plan(const Study& study, const std::string& results_dir,
                            const std::string& campaign = "");
// The name the plan's database and run folders are stored under: "study[@campaign]".
std::string storage_name(const SubmitPlan& plan);
std::string study_database_path(const std::string& results_dir, const std::string& study_name);
// <results_dir>/<study>/runs/<run_id>
std::string run_out_dir(const std::string& results_dir, const std::string& study_name,
                        const std::string& run_id);

// Makes a run ready for a scheduler: writes what the scheduler will execute into out_dir
// (which exists). See prepare_run.hpp for the default one.
using PrepareRun =
    std::function<Result<sched::PreparedRun>(const RunSpec& spec, const std::string& out_dir)>;

struct SubmitOptions {
  bool dry_run = false;  // report what would be submitted; no claims, no scheduler calls
  // Shared scheduler settings: the array script dir, and for polling runs of another
  // scheduler.
  sched::SchedulerContext scheduler_context;
  PrepareRun prepare;
  std::function<void(const std::string& line)> log;  // progress lines; may be empty
  common::FaultInjector faults;  // the submit.* points; passes counted per submit_study call
  // Only runs never submitted (or waiting for a submit slot): `wait` submits the waves a
  // submit limit held back, but leaves failed runs to an explicit submit.
  bool planned_only = false;
  // The scheduler's command-line options as given; a submit that is no dry run and not
  // `wait`'s (planned_only) records them with the scheduler's name for the later waves.
  std::vector<std::string> scheduler_options;
};

struct SubmitReport {
  std::string database_path;
  std::vector<sched::Submission> submitted;  // in this call
  std::vector<std::string> would_submit;     // dry run: the runs a submit would claim
  std::vector<std::string> completed;        // skipped: done
  std::vector<std::string> in_flight;        // left alone: pending / running / claimed elsewhere
  std::vector<std::string> exhausted;        // failed with no attempts left
  std::vector<std::string> waiting;          // held back by a submit limit for a later wave
  std::vector<std::string> errors;           // runs that could not be prepared or submitted
};

Result<SubmitReport> submit_study(const SubmitPlan& plan, sched::Scheduler& scheduler,
                                  const SubmitOptions& options);

// Polls the scheduler of every run in flight (SUBMITTED / PENDING / RUNNING) and records
// what it says. `preferred` (may be null) polls the runs of its own name, and of backends
// that share its job ids (sched::share_job_ids); other runs get a scheduler made from
// `context`.
Status reconcile_study(StudyState& state, const sched::SchedulerContext& context,
                       sched::Scheduler* preferred = nullptr);

}  // namespace scalestudy::campaign
