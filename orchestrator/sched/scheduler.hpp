// Scheduler: how an allocation is obtained for a run, behind one small interface (ReFrame's
// schedulers/ model). A backend owns everything specific to it: how a run is prepared (its
// job script or command line), submitted, polled and cancelled, and which command-line
// options it takes; it registers itself in scheduler_registry.cpp, one file per backend
// (local_scheduler, slurm_scheduler, slurmrest_scheduler). A Scheduler instance is used
// from one thread; separate instances share nothing.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/common/job_state.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::sched {

// Job states are common/'s vocabulary (the campaign stores them, the reports read them);
// the scheduler interface and every backend speak it as their own.
using common::is_retryable;
using common::is_terminal;
using common::JobState;
using common::JobStatus;
using common::parse_job_state;
using common::to_string;

// One run ready to hand to a scheduler: its spec, where it writes, and how it starts.
struct PreparedRun {
  RunSpec spec;
  std::string out_dir;                     // results/<study>/runs/<run_id>, created
  std::string script_path;                 // the rendered job script
  std::vector<std::string> workload_argv;  // the workload binary + flags
};

// What a backend needs to prepare a run (Scheduler::prepare).
struct RunPreparation {
  std::string out_dir;        // the run's folder, absolute, created
  std::string bin_dir;        // where the workload binaries and scalestudy-launch live
  ProfileDefinition profile;  // the run's profile; empty wrapper: no profiler
  bool profiled = false;      // an extra profiled run (`scalestudy profile`)
};

struct Submission {
  std::string run_id;
  std::string job_id;  // "123", "123_4" (array task), "local-4711"
};

// Callbacks through which submit() reports progress as it happens, so the study database
// records a job id the moment it exists (a later failure in the same batch loses nothing).
struct SubmitCallbacks {
  std::function<void(const Submission&)> submitted;
  // Backends that run jobs to completion inside submit() (local) call this, and a packed
  // allocation for a run it recorded but could not mark for its wrapper (FAILED).
  std::function<void(const Submission&, const JobStatus&)> finished;
  // Backends that can hold a run's processes between creating and starting them (local)
  // call this before `submitted`, with the job id: the run starts only when it returns
  // ok, so a run that cannot be recorded (disk full, lost claim) never executes.
  std::function<Status(const Submission&)> launching{};
  // Batch backends call this for each run they hold back because a site submit limit is
  // reached (`limit` says which); the run is not submitted now and waits for a later wave.
  std::function<void(const std::string& run_id, const std::string& limit)> deferred{};
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  virtual std::string name() const = 0;
  // True when submit() runs the jobs to completion before it returns.
  virtual bool runs_inside_submit() const { return false; }
  // True when the runs execute on this host, and how many at once (interference risks).
  virtual bool runs_on_this_host() const { return false; }
  virtual int max_parallel_runs() const { return 1; }
  // Whether the scheduler answers at all (slurmrestd's ping, sbatch on PATH), asked before
  // anything is claimed or submitted; an error names what is missing.
  virtual Status check_reachable() { return Status::ok(); }
  // The account the jobs run as when it is not necessarily the submitter's (slurmrest: the
  // token's user); empty when jobs run as the submitting user.
  virtual std::string job_user() const { return ""; }

  // Makes `spec` ready to submit: writes what the backend will execute into
  // preparation.out_dir and fills the PreparedRun.
  virtual Result<PreparedRun> prepare(const RunSpec& spec,
                                      const RunPreparation& preparation) const = 0;
  // Submits every run (the backend may batch them, e.g. into job arrays), calling
  // callbacks.submitted for each as its job id becomes known, or callbacks.deferred for a
  // run a submit limit holds back. An error stops the batch; the runs reported through the
  // callbacks before it stay as reported.
  virtual Result<std::vector<Submission>> submit(const std::vector<PreparedRun>& runs,
                                                 const SubmitCallbacks& callbacks) = 0;
  // The current state of each job the scheduler still knows; unknown ids are left out.
  virtual Result<std::map<std::string, JobStatus>> poll(
      const std::vector<std::string>& job_ids) = 0;
  // Cancels whole jobs. A packed run is no job of its own: `scalestudy cancel` marks it
  // dropped and its allocation's wrapper stops it (packed_run_marks.hpp).
  virtual Status cancel(const std::vector<std::string>& job_ids) = 0;
  // How a job that poll calls lost (its watcher gone) ended, from what its launcher left in
  // the run's folder `out_dir`; nothing when it left nothing (every backend but local).
  virtual std::optional<JobStatus> recorded_end(const std::string& job_id,
                                                const std::string& out_dir) const {
    return std::nullopt;
  }
};

}  // namespace scalestudy::sched
