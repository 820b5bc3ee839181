#include "orchestrator/sched/local_launch.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace scalestudy::sched;

namespace {
PreparedRun two_rank_run() {
  PreparedRun run;
  run.spec.run_id = "r";
  run.spec.world_size = 2;
  run.spec.env = {{"OMP_NUM_THREADS", "1"}};
  run.out_dir = "/res/r";
  run.workload_argv = {"/bin/train", "--run-id", "r"};
  return run;
}
}  // namespace

TEST_CASE("with a launcher: one single-node scalestudy-launch process around the workload") {
  auto processes = plan_local_launch(two_rank_run(), "/bin/scalestudy-launch", 29511);
  REQUIRE(processes.size() == 1);
  CHECK(processes[0].argv == std::vector<std::string>{"/bin/scalestudy-launch", "--nproc-per-node",
                                                      "2", "--nnodes", "1", "--node-rank", "0",
                                                      "--master-addr", "127.0.0.1", "--master-port",
                                                      "29511", "--rank-log-dir", "/res/r", "--",
                                                      "/bin/train", "--run-id", "r"});
  CHECK(processes[0].env_overrides.at("OMP_NUM_THREADS") == "1");
  CHECK(processes[0].env_overrides.at("SCALESTUDY_RUN_ID") == "r");
  CHECK(processes[0].env_overrides.at("SCALESTUDY_OUT_DIR") == "/res/r");
  CHECK(processes[0].log_path == "/res/r/launch.log");
}

TEST_CASE("the launcher's hang watchdog: its default rule, a set limit, or off") {
  PreparedRun run = two_rank_run();
  auto words_before_workload = [&](const std::string& py_spy) {
    const auto argv = plan_local_launch(run, "/bin/scalestudy-launch", 29511, py_spy)[0].argv;
    const auto dir = std::find(argv.begin(), argv.end(), "/res/r");
    return std::vector<std::string>(dir + 1, std::find(argv.begin(), argv.end(), "--"));
  };
  CHECK(words_before_workload("").empty());  // the launcher's default rule
  CHECK(words_before_workload("/v/bin/py-spy") ==
        std::vector<std::string>{"--py-spy", "/v/bin/py-spy"});
  run.spec.slurm.hang_after_s = 30;
  CHECK(words_before_workload("/v/bin/py-spy") ==
        std::vector<std::string>{"--hang-after-s", "30", "--py-spy", "/v/bin/py-spy"});
  run.spec.slurm.hang_after_s = 0;
  CHECK(words_before_workload("/v/bin/py-spy") == std::vector<std::string>{"--hang-after-s", "0"});
}

TEST_CASE("a one-rank run starts its workload directly, launcher or not") {
  PreparedRun run = two_rank_run();
  run.spec.world_size = 1;
  auto processes = plan_local_launch(run, "/bin/scalestudy-launch", 29511);
  REQUIRE(processes.size() == 1);
  CHECK(processes[0].argv == std::vector<std::string>{"/bin/train", "--run-id", "r"});
  CHECK(processes[0].env_overrides.at("RANK") == "0");
  CHECK(processes[0].env_overrides.at("WORLD_SIZE") == "1");
  CHECK(processes[0].log_path == "/res/r/rank0.log");
}

TEST_CASE("parameters passed as environment variables reach every rank") {
  PreparedRun run = two_rank_run();
  run.spec.params = {{"data_dir", "/data"}};
  run.spec.invocation.env_params = {{"data_dir", "DATA_DIR"}};
  for (const auto& process : plan_local_launch(run, "", 29511)) {
    CHECK(process.env_overrides.at("DATA_DIR") == "/data");
    CHECK(process.env_overrides.at("OMP_NUM_THREADS") == "1");
  }
}

TEST_CASE("without a launcher: one process per rank with the torchrun environment") {
  auto processes = plan_local_launch(two_rank_run(), "", 29511);
  REQUIRE(processes.size() == 2);
  for (int rank = 0; rank < 2; ++rank) {
    const auto& env = processes[rank].env_overrides;
    CHECK(processes[rank].argv == std::vector<std::string>{"/bin/train", "--run-id", "r"});
    CHECK(env.at("RANK") == std::to_string(rank));
    CHECK(env.at("LOCAL_RANK") == std::to_string(rank));
    CHECK(env.at("WORLD_SIZE") == "2");
    CHECK(env.at("LOCAL_WORLD_SIZE") == "2");
    CHECK(env.at("MASTER_ADDR") == "127.0.0.1");
    CHECK(env.at("MASTER_PORT") == "29511");
    CHECK(processes[rank].log_path == "/res/r/rank" + std::to_string(rank) + ".log");
  }
}
