// Rank discovery: who this process is in the run (rank, world size, local rank) and where
// the rendezvous lives, from the launcher's environment variables.
//
// Conventions, in order of precedence:
//   torchrun  RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//             (wins when both are set: torchrun started inside an srun step)
//   slurm     SLURM_PROCID, SLURM_STEP_NUM_TASKS or SLURM_NTASKS, SLURM_LOCALID,
//             SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE / SLURM_NTASKS_PER_NODE,
//             master = first host of SLURM_STEP_NODELIST or SLURM_JOB_NODELIST
//   single    neither set: rank 0 of a world of 1
// Without MASTER_PORT the port derives from SLURM_JOB_ID, so concurrent jobs that share a
// host pick different ones unless their ids lie a multiple of 12768 apart (dist::connect
// turns away a rank that meets another launch there). The environment is passed in (tests
// build their own).
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::dist {

using Environment = std::map<std::string, std::string>;

// A snapshot of this process's environment variables.
Environment process_environment();

struct RankInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string job_id;                 // SLURM_JOB_ID; empty outside SLURM
  std::string run_id;                 // SCALESTUDY_RUN_ID: the orchestrator's run; empty by hand
  std::string launch_id;              // SCALESTUDY_LAUNCH_ID: a one-node scalestudy-launch's
  std::string convention = "single";  // "single" | "torchrun" | "slurm"
};

Result<RankInfo> discover_ranks(const Environment& environment);

constexpr int kDefaultMasterPort = 29500;
// 20000 + job_id % 12768: a port in [20000, 32768) that differs between jobs whose ids
// lie fewer than 12768 apart (SLURM numbers jobs consecutively) and stays below Linux's ephemeral
// range (32768-60999), where any outgoing connection on the node may hold it; kDefaultMasterPort
// when the id is empty or not numeric. slurm/templates/sbatch.sh.in derives its MASTER_PORT alike.
int derive_master_port(const std::string& job_id);

}  // namespace scalestudy::dist
