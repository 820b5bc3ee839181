// How the local backend starts one run's ranks on this machine: either one
// `scalestudy-launch --nproc-per-node N -- WORKLOAD...` process (torchrun-style, the same
// launcher the rendered SLURM scripts use per node) or, without a launcher, one process
// per rank with the torchrun environment set directly. Either way each rank sees RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT, which is what
// the harness's rank discovery reads, plus SCALESTUDY_RUN_ID and SCALESTUDY_OUT_DIR; and
// each rank's stdout and stderr land in <out_dir>/rank<RANK>.log. Also the profile wrapper
// of a profiled local run, resolved so it can be executed. Functions; no state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"
#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

struct LocalProcess {
  std::vector<std::string> argv;  // argv[0] is a path
  std::map<std::string, std::string> env_overrides;
  std::string log_path;  // stdout and stderr, appended (the launcher's own, with one)
};

// The processes that together make up `run` on one node. master_port must be free and
// distinct from every concurrently running run's.
// `py_spy_path`: the launcher's --py-spy for its hang watchdog (py_spy_lookup.hpp); may be
// empty.
std::vector<LocalProcess> plan_local_launch(const PreparedRun& run,
                                            const std::string& launcher_path, int master_port,
                                            const std::string& py_spy_path = "");

// The profile's wrapper words with {{out_dir}} and {{run_id}} replaced, the first resolved
// on PATH (the local backend starts argv[0] without a PATH search).
Result<std::vector<std::string>> local_wrapper_argv(const ProfileDefinition& profile,
                                                    const std::string& out_dir,
                                                    const std::string& run_id);

}  // namespace scalestudy::sched
