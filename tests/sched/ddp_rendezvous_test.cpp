// An unmodified PyTorch DDP script (init_process_group() with no arguments) meets its
// peers under scalestudy-launch, both torchrun-style and as srun tasks (--srun-task, given
// the variables srun sets), with each rank's output in rank<RANK>.log. Needs
// /usr/bin/python3 with Debian's python3-torch. The same under a real srun is in
// slurm_cluster_test.cpp.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/free_port.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

const std::string kPython = "/usr/bin/python3";

ProcessResult run_launch(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {binary_dir() + "/scalestudy-launch"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = run_process({argv, env, 180'000});
  REQUIRE(result);
  return *result;
}

}  // namespace

TEST_CASE("torchrun-style: two ranks rendezvous, each with its own output file") {
  fs::path dir = scratch_dir("rendezvous_launch");
  const std::string script = write_rendezvous_script(dir);
  ProcessResult launched = run_launch(
      {"--nproc-per-node", "2", "--rank-log-dir", dir.string(), "--", kPython, script}, {});
  INFO(launched.stderr_text << read_file((dir / "rank0.log").string())
                            << read_file((dir / "rank1.log").string()));
  REQUIRE(launched.succeeded());
  CHECK(read_file((dir / "rank0.log").string()) == "rank 0 of 2 local 0 sum 3\n");
  CHECK(read_file((dir / "rank1.log").string()) == "rank 1 of 2 local 1 sum 3\n");
}

TEST_CASE("srun tasks: the torchrun variables come from SLURM_PROCID and friends") {
  fs::path dir = scratch_dir("rendezvous_srun_task");
  const std::string script = write_rendezvous_script(dir);
  // What srun gives the two tasks of a one-node step (no RANK, WORLD_SIZE, LOCAL_RANK).
  const int port = free_port();
  auto task_env = [port](int task) {
    return std::map<std::string, std::string>{{"SLURM_PROCID", std::to_string(task)},
                                              {"SLURM_LOCALID", std::to_string(task)},
                                              {"SLURM_NODEID", "0"},
                                              {"SLURM_NTASKS", "2"},
                                              {"SLURM_STEP_TASKS_PER_NODE", "2"},
                                              {"SLURM_JOB_ID", "4242"},
                                              {"MASTER_ADDR", "127.0.0.1"},
                                              {"MASTER_PORT", std::to_string(port)}};
  };
  ProcessResult tasks[2];
  std::thread second([&] {
    tasks[1] = run_launch({"--srun-task", "--rank-log-dir", dir.string(), "--", kPython, script},
                          task_env(1));
  });
  tasks[0] = run_launch({"--srun-task", "--rank-log-dir", dir.string(), "--", kPython, script},
                        task_env(0));
  second.join();
  INFO(tasks[0].stderr_text << tasks[1].stderr_text << read_file((dir / "rank0.log").string())
                            << read_file((dir / "rank1.log").string()));
  CHECK(tasks[0].succeeded());
  CHECK(tasks[1].succeeded());
  CHECK(read_file((dir / "rank0.log").string()) == "rank 0 of 2 local 0 sum 3\n");
  CHECK(read_file((dir / "rank1.log").string()) == "rank 1 of 2 local 1 sum 3\n");
}
