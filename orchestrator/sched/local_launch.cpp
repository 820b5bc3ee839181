#include "orchestrator/sched/local_launch.hpp"

#include <algorithm>

#include "harness/core/run_layout.hpp"
#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sched/render/job_script.hpp"

namespace scalestudy::sched {

std::vector<LocalProcess> plan_local_launch(const PreparedRun& run,
                                            const std::string& launcher_path, int master_port,
                                            const std::string& py_spy_path) {
  const int world_size = std::max(1, run.spec.world_size);
  std::map<std::string, std::string> common = workload_environment(run.spec, run.out_dir);
  common["SCALESTUDY_RUN_ID"] = run.spec.run_id;
  common["SCALESTUDY_OUT_DIR"] = run.out_dir;
  common["MASTER_ADDR"] = "127.0.0.1";
  common["MASTER_PORT"] = std::to_string(master_port);
  common["WORLD_SIZE"] = std::to_string(world_size);
  common["LOCAL_WORLD_SIZE"] = std::to_string(world_size);

  // One rank needs no launcher: the local scheduler sets the torchrun variables, forwards
  // stop signals and reads a checkpoint's exit 75 itself, and a process less per run is
  // about 6 ms of a short run (docs/performance.md, the orchestrator section).
  if (!launcher_path.empty() && world_size > 1) {
    LocalProcess launcher;
    // Explicit single-node settings: inside a SLURM allocation the launcher would otherwise
    // take its node count and master address from SLURM_*.
    launcher.argv = {launcher_path,
                     "--nproc-per-node",
                     std::to_string(world_size),
                     "--nnodes",
                     "1",
                     "--node-rank",
                     "0",
                     "--master-addr",
                     "127.0.0.1",
                     "--master-port",
                     std::to_string(master_port),
                     "--rank-log-dir",
                     run.out_dir};
    const std::vector<std::string> watch = hang_watch_flags(run.spec, py_spy_path);
    launcher.argv.insert(launcher.argv.end(), watch.begin(), watch.end());
    launcher.argv.push_back("--");
    launcher.argv.insert(launcher.argv.end(), run.workload_argv.begin(), run.workload_argv.end());
    launcher.env_overrides = common;
    launcher.log_path = run.out_dir + "/launch.log";
    return {launcher};
  }
  std::vector<LocalProcess> ranks;
  for (int rank = 0; rank < world_size; ++rank) {
    LocalProcess process;
    process.argv = run.workload_argv;
    process.env_overrides = common;
    process.env_overrides["RANK"] = std::to_string(rank);
    process.env_overrides["LOCAL_RANK"] = std::to_string(rank);
    process.env_overrides["GROUP_RANK"] = "0";
    process.log_path = run_layout::rank_log_path(run.out_dir, rank);
    ranks.push_back(std::move(process));
  }
  return ranks;
}

Result<std::vector<std::string>> local_wrapper_argv(const ProfileDefinition& profile,
                                                    const std::string& out_dir,
                                                    const std::string& run_id) {
  std::vector<std::string> words;
  for (const auto& word : profile.wrapper) {
    words.push_back(expand_wrapper_word(word, out_dir, run_id));
  }
  if (!words.empty() && words[0].find('/') == std::string::npos) {
    auto program = common::find_on_path(words[0]);
    if (!program) {
      return Status::error("profile '" + profile.name + "': '" + words[0] + "' is not on PATH");
    }
    words[0] = *program;
  }
  return words;
}

}  // namespace scalestudy::sched
