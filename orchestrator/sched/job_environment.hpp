// What environment a SLURM job starts with. sbatch would export the submitter's whole
// environment (SLURM_JWT, MLFLOW_TRACKING_TOKEN, cloud keys) into every job: the sbatch
// backend names the variables instead (SBATCH_EXPORT, sbatch's --export), leaving out every name
// that looks secret (study/secret_names.hpp) unless a run lists it under `env_passthrough`.
// slurmrestd inherits nothing: its jobs get a few fixed variables and the runs' passthrough ones.
// The job script then hands its whole environment to its steps (SLURM_EXPORT_ENV=ALL).
// Pure; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

using Environment = std::map<std::string, std::string>;

// This process's environment (environ), name -> value.
Environment current_environment();

// The names the runs list under env_passthrough, each once, in first-seen order.
std::vector<std::string> passthrough_names(const std::vector<const PreparedRun*>& runs);

// "NAME,..." for sbatch's --export (SBATCH_EXPORT): every variable of `submitter` whose name
// does not look secret, and the runs' passthrough variables that `submitter` sets. Names
// only: sbatch takes each value from its own environment.
std::string sbatch_export_list(const std::vector<const PreparedRun*>& runs,
                               const Environment& submitter);

// A slurmrestd job's environment: PATH (a default when unset), LD_LIBRARY_PATH, SLURM_CONF,
// LANG and the runs' passthrough variables as `submitter` sets them.
Environment rest_job_environment(const std::vector<const PreparedRun*>& runs,
                                 const Environment& submitter);

}  // namespace scalestudy::sched
