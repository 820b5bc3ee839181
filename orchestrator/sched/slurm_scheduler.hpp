// The `slurm` backend: the SLURM command-line tools through the process runner (argv, never
// a shell). submit = `sbatch --parsable` per batch job (job arrays for runs of one shape),
// in a wave that fits the user's submit limits (sacctmgr, scontrol, squeue; submit_limits);
// poll = `squeue -r -t all` for what slurmctld still holds, then `sacct -X` for finished
// jobs (exit codes, and jobs slurmctld has forgotten); cancel = `scancel`. Every call is
// counted (commands_run) so benchmarks can report scheduler load. Not thread-safe.
#pragma once

#include "orchestrator/sched/batch_jobs.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::sched {

// The registry's entry: name "slurm", detected when sbatch is on PATH and squeue answers.
SchedulerEntry slurm_scheduler_entry();

class SlurmScheduler : public Scheduler {
 public:
  explicit SlurmScheduler(const BatchOptions& options) : options_(options) {}

  std::string name() const override { return "slurm"; }
  Status check_reachable() override;
  // The rendered job script (<out_dir>/job.sbatch).
  Result<PreparedRun> prepare(const RunSpec& spec,
                              const RunPreparation& preparation) const override;
  Result<std::vector<Submission>> submit(const std::vector<PreparedRun>& runs,
                                         const SubmitCallbacks& callbacks) override;
  Result<std::map<std::string, JobStatus>> poll(const std::vector<std::string>& job_ids) override;
  Status cancel(const std::vector<std::string>& job_ids) override;

  int commands_run() const { return commands_run_; }

 private:
  // `environment`: variables set for the command only (SBATCH_EXPORT for sbatch).
  Result<std::string> run_command(const std::vector<std::string>& argv, bool tolerate_failure,
                                  const std::map<std::string, std::string>& environment = {});
  BatchOptions options_;
  int commands_run_ = 0;
};

}  // namespace scalestudy::sched
