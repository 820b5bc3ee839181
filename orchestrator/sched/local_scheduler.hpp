// The local backend: runs each run's ranks as processes on this machine. There is no
// daemon: submit() executes the runs itself, at most max_parallel_runs at a time and never
// more ranks than max_slots at once (a run wider than max_slots runs alone), and returns
// when all have finished, reporting each job through the callbacks as it starts and ends;
// the caller records those states in the study database. A run is one process group; its
// job id is "local-<submitter pid>.<process group id>", so another process (status,
// cancel) can tell a live run (group alive), one whose submitter still owns it, and one
// lost with its submitter (both gone: FAILED, "lost"). A rank failing stops its run's other
// ranks (SIGTERM, then SIGKILL after a grace period), as torchrun does; a RunSpec time limit
// is enforced the same way and ends in TIMEOUT. Each process runs under a keeper that
// records its end beside the run (exit_record.hpp), which `recorded_end` reads once its
// submitter is gone. With an InterruptWatch, Ctrl-C stops the runs started here and
// records them CANCELLED; a second one leaves at once. Not thread-safe; one instance per
// thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::sched {

struct LocalOptions {
  int max_parallel_runs = 1;  // runs at once
  int max_slots = 0;          // ranks at once; 0: the machine's hardware threads
  std::string launcher_path;  // scalestudy-launch; empty: ranks are spawned directly
  std::string py_spy_path;    // its --py-spy (py_spy_lookup.hpp); empty: its own search
  common::InterruptWatch* interrupts = nullptr;  // Ctrl-C on the submitter; may be null
  bool detach_on_interrupt = false;              // the first Ctrl-C leaves the runs going on
};

// --max-parallel N and --max-slots N; the launcher when context.bin_dir holds one.
Result<LocalOptions> parse_local_options(const SchedulerContext& context,
                                         const SchedulerOptionValues& values);

// The registry's entry: name "local", the fallback when no cluster answers.
SchedulerEntry local_scheduler_entry();

class LocalScheduler : public Scheduler {
 public:
  explicit LocalScheduler(const LocalOptions& options);

  std::string name() const override { return "local"; }
  bool runs_inside_submit() const override { return true; }
  bool runs_on_this_host() const override { return true; }
  int max_parallel_runs() const override { return max_parallel_runs_; }
  // The job script (kept for inspection) and the workload's command line, which is what
  // runs here; a profiled run's command line starts with its profile's wrapper.
  Result<PreparedRun> prepare(const RunSpec& spec,
                              const RunPreparation& preparation) const override;
  Result<std::vector<Submission>> submit(const std::vector<PreparedRun>& runs,
                                         const SubmitCallbacks& callbacks) override;
  Result<std::map<std::string, JobStatus>> poll(const std::vector<std::string>& job_ids) override;
  Status cancel(const std::vector<std::string>& job_ids) override;
  // A run whose submitter is gone: the ends its keepers recorded (exit_record.hpp).
  std::optional<JobStatus> recorded_end(const std::string& job_id,
                                        const std::string& out_dir) const override;

 private:
  int max_parallel_runs_;
  int max_slots_;
  std::string launcher_path_;
  std::string py_spy_path_;
  common::InterruptWatch* interrupts_;
  bool detach_on_interrupt_;
  std::map<std::string, JobStatus> finished_;  // jobs this instance ran to completion
};

}  // namespace scalestudy::sched
