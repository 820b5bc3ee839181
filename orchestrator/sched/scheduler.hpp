// Scheduler: how an allocation is obtained for a run, behind one small interface with a
// registry by name (ReFrame's schedulers/ model). Backends, one file each:
//   local     - runs the ranks as local processes inside the submitting process
//               (daemon-less: submit() blocks until its runs finish; see local_scheduler.hpp)
//   slurm     - sbatch / squeue / sacct / scancel through the process runner
//   slurmrest - the same through slurmrestd's REST API (libcurl)
// A Scheduler instance is used from one thread; separate instances share nothing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/common/job_state.hpp"
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
  std::string script_path;                 // the rendered sbatch script (slurm backends)
  std::vector<std::string> workload_argv;  // the workload binary + flags (local backend)
};

struct Submission {
  std::string run_id;
  std::string job_id;  // "123", "123_4" (array task), "local-4711"
};

// Callbacks through which submit() reports progress as it happens, so the study database
// records a job id the moment it exists (a later failure in the same batch loses nothing).
struct SubmitCallbacks {
  std::function<void(const Submission&)> submitted;
  // Only backends that run jobs to completion inside submit() (local) call this.
  std::function<void(const Submission&, const JobStatus&)> finished;
  // Backends that can hold a run's processes between creating and starting them (local)
  // call this before `submitted`, with the job id: the run starts only when it returns
  // ok, so a run that cannot be recorded (disk full, lost claim) never executes.
  std::function<Status(const Submission&)> launching;
};

struct SchedulerOptions {
  // local
  int max_parallel_runs = 1;  // runs at once
  int max_slots = 0;          // ranks at once; 0: the machine's hardware threads
  std::string launcher_path;  // scalestudy-launch; empty: ranks are spawned directly
  // slurm and slurmrest
  bool use_job_arrays = true;                  // runs of identical shape share one --array job
  int array_throttle = 0;                      // the %N of --array; 0: no throttle
  bool ordered = false;                        // each submission waits for the previous (afterany)
  std::vector<std::string> extra_sbatch_args;  // e.g. "--hold"
  std::string array_script_dir;                // where array wrapper scripts are written
  int command_timeout_ms = 120'000;
  // slurmrest
  std::string rest_url;  // "unix:/path/slurmrestd.sock" or "https://host:port"
  std::string rest_api_version = "v0.0.38";
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  virtual std::string name() const = 0;
  // True when submit() runs the jobs to completion before it returns (local).
  virtual bool runs_inside_submit() const { return false; }
  // Whether the scheduler answers at all (slurmrestd's ping, sbatch on PATH), asked before
  // anything is claimed or submitted; an error names what is missing.
  virtual Status check_reachable() { return Status::ok(); }
  // The account the jobs run as when it is not necessarily the submitter's (slurmrest: the
  // token's user); empty when jobs run as the submitting user.
  virtual std::string job_user() const { return ""; }

  // Submits every run (the backend may batch them, e.g. into job arrays), calling
  // callbacks.submitted for each as its job id becomes known. An error stops the batch;
  // the runs reported through the callback before it stay submitted.
  virtual Result<std::vector<Submission>> submit(const std::vector<PreparedRun>& runs,
                                                 const SubmitCallbacks& callbacks) = 0;
  // The current state of each job the scheduler still knows; unknown ids are left out.
  virtual Result<std::map<std::string, JobStatus>> poll(
      const std::vector<std::string>& job_ids) = 0;
  virtual Status cancel(const std::vector<std::string>& job_ids) = 0;
};

// "local", "slurm" or "slurmrest"; an error naming the known ones otherwise.
Result<std::unique_ptr<Scheduler>> make_scheduler(const std::string& name,
                                                  const SchedulerOptions& options);
std::vector<std::string> scheduler_names();

// The default when neither the command line nor the study names one: slurmrest if
// SCALESTUDY_SLURMRESTD is set, slurm if sbatch is on PATH and squeue answers, else local.
std::string detect_scheduler();

}  // namespace scalestudy::sched
