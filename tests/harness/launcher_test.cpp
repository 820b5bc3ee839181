// scalestudy-launch: the torchrun-style environment of each rank, failure propagation with
// a grace period, and signal forwarding. Children are small shell scripts.
#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <thread>

#include "tests/harness/child_process.hpp"

namespace scalestudy {
namespace {

std::vector<std::string> launch(std::vector<std::string> launcher_flags,
                                const std::string& script) {
  std::vector<std::string> command = {testing::binary("scalestudy-launch")};
  command.insert(command.end(), launcher_flags.begin(), launcher_flags.end());
  command.insert(command.end(), {"--", "sh", "-c", script});
  return command;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("each rank gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and one master") {
  std::string dir = testing::fresh_dir("launch-env");
  auto run = testing::run_to_end(
      launch({"--nproc-per-node", "3", "--nnodes", "2", "--node-rank", "1", "--master-addr",
              "10.0.0.7"},
             "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR $MASTER_PORT\" "
             "> " +
                 dir + "/rank$RANK"),
      {{"MASTER_PORT", "29611"}}, dir + "/out.txt", 30);
  REQUIRE(run.exit_code == 0);
  for (int local_rank = 0; local_rank < 3; ++local_rank) {
    int rank = 3 + local_rank;
    CHECK(testing::read_text(dir + "/rank" + std::to_string(rank)) ==
          std::to_string(rank) + " 6 " + std::to_string(local_rank) + " 3 10.0.0.7 29611\n");
  }
}

TEST_CASE("a single-node launch outside SLURM picks a free port, a SLURM job derives one") {
  std::string dir = testing::fresh_dir("launch-port");
  auto local = testing::run_to_end(launch({"--nproc-per-node", "1"}, "echo $MASTER_PORT"), {},
                                   dir + "/local.txt", 30);
  REQUIRE(local.exit_code == 0);
  int port = std::stoi(local.output);
  CHECK(port > 0);
  CHECK(port < 65536);
  auto slurm = testing::run_to_end(
      launch({"--nproc-per-node", "1"}, "echo $MASTER_ADDR $MASTER_PORT"),
      {{"SLURM_JOB_ID", "123"}, {"SLURM_JOB_NODELIST", "cn[07-09]"}}, dir + "/slurm.txt", 30);
  REQUIRE(slurm.exit_code == 0);
  CHECK(slurm.output == "cn07 20123\n");
}

TEST_CASE("a failing rank: the others are stopped after the grace period, its code returned") {
  std::string dir = testing::fresh_dir("launch-fail");
  auto started = std::chrono::steady_clock::now();
  // The other ranks would sleep 600 s: stopped, they end long before the generous bound.
  auto run = testing::run_to_end(launch({"--nproc-per-node", "3", "--grace-s", "1"},
                                        "if [ \"$RANK\" = 1 ]; then exit 7; fi; exec sleep 600"),
                                 {}, dir + "/out.txt", 90);
  CHECK(run.exit_code == 7);
  CHECK(seconds_since(started) < 60);
}

TEST_CASE("SIGTERM to the launcher reaches every rank") {
  std::string dir = testing::fresh_dir("launch-term");
  testing::ChildProcess launcher(
      launch({"--nproc-per-node", "2"}, "trap 'echo terminated > " + dir +
                                            "/rank$RANK; kill $!; exit 3' TERM; "
                                            "touch " +
                                            dir + "/ready$RANK; sleep 60 & wait"),
      {}, dir + "/out.txt");
  REQUIRE(launcher.started());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         !(std::filesystem::exists(dir + "/ready0") && std::filesystem::exists(dir + "/ready1"))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  launcher.signal(SIGTERM);
  CHECK(launcher.wait(20) == 128 + SIGTERM);
  CHECK(testing::read_text(dir + "/rank0") == "terminated\n");
  CHECK(testing::read_text(dir + "/rank1") == "terminated\n");
}

TEST_CASE("ranks that all checkpointed on a forwarded SIGTERM: the launcher exits 75 too") {
  std::string dir = testing::fresh_dir("launch-checkpointed");
  testing::ChildProcess launcher(
      launch({"--nproc-per-node", "2"},
             "trap 'kill $!; exit 75' TERM; touch " + dir + "/ready$RANK; sleep 60 & wait"),
      {}, dir + "/out.txt");
  REQUIRE(launcher.started());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         !(std::filesystem::exists(dir + "/ready0") && std::filesystem::exists(dir + "/ready1"))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  launcher.signal(SIGTERM);
  CHECK(launcher.wait(20) == 75);
  // Without a signal, too: a rank's 75 stops nobody, and all of them make the launcher's.
  auto stopped = testing::run_to_end(launch({"--nproc-per-node", "2", "--grace-s", "1"}, "exit 75"),
                                     {}, dir + "/stopped.txt", 30);
  CHECK(stopped.exit_code == 75);
}

TEST_CASE("usage errors") {
  std::string dir = testing::fresh_dir("launch-usage");
  auto no_command = testing::run_to_end(
      {testing::binary("scalestudy-launch"), "--nproc-per-node", "2"}, {}, dir + "/a.txt", 10);
  CHECK(no_command.exit_code == 2);
  CHECK(no_command.output.find("no command after --") != std::string::npos);
  auto unknown =
      testing::run_to_end({testing::binary("scalestudy-launch"), "--nprocs", "2", "--", "true"}, {},
                          dir + "/b.txt", 10);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("unknown flag --nprocs") != std::string::npos);
}

}  // namespace scalestudy
