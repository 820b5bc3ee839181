// Checkpoint and resume through the orchestrator's local executor: SIGTERM to a running
// 2-rank study run (its process group, as a time limit or `kill` would) makes it checkpoint
// and exit 75; `scalestudy run` records the attempt PREEMPTED, resubmits it, and the second
// attempt resumes and completes with the final metrics of an uninterrupted run of the same
// study.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;
using testing::db_number;
using testing::db_text;

// `extra_workload`: more workload lines, each "  name: value\n".
void write_study(const std::string& path, const std::string& name,
                 const std::string& extra_workload) {
  std::ofstream(path) << "study: " << name << "\nkind: strong\nworkload:\n"
                      << extra_workload << R"(  model: small-cnn
  dataset: synthetic
  val_samples: 64
  epochs: 2
  steps_per_epoch: 60
  measure_warmup_steps: 2
  stop_check_every: 2
  optimizer: sgd
  lr: 0.05
  momentum: 0.9
  log_interval: 0
  seed: 7
  threads: 1
scale: [2]
global_batch: 16
max_attempts: 3
slurm: {ranks_per_node: 2, cpus_per_task: 1}
)";
}

testing::ChildProcess start_run(const std::string& dir, const std::string& name,
                                const std::string& extra_workload = "") {
  const std::string study = dir + "/" + name + ".yaml";
  write_study(study, name, extra_workload);
  return testing::ChildProcess(
      {testing::binary("scalestudy"), "run", study, "--scheduler", "local", "--results-dir",
       dir + "/results", "--timeout", "280", "--poll-interval", "1", "--no-plots"},
      {}, dir + "/" + name + "-output.txt");
}

// The run folder of the study's only run, once it exists.
std::string run_dir_of(const std::string& dir, const std::string& name) {
  const fs::path runs = fs::path(dir) / "results" / name / "runs";
  if (!fs::exists(runs)) return "";
  for (const auto& entry : fs::directory_iterator(runs)) return entry.path().string();
  return "";
}

}  // namespace

TEST_CASE("SIGTERM to a local 2-rank run: PREEMPTED, resubmitted, resumed to the same result") {
  const std::string dir = testing::fresh_dir("checkpoint-study-local");

  testing::ChildProcess reference = start_run(dir, "uncut");
  REQUIRE(reference.wait(290) == 0);
  const std::string uncut_db = run_dir_of(dir, "uncut") + "/rank0.sqlite";
  const double uncut_loss =
      db_number(uncut_db, "SELECT value FROM summary WHERE name = 'final_val_loss'");

  // A pause after every step makes the second epoch last 15 s or more, so the signal sent
  // once the first is seen lands inside the run however fast the machine; it changes no
  // number the run computes.
  testing::ChildProcess cut = start_run(dir, "cut", "  test_step_delay_ms: 250\n");
  REQUIRE(cut.started());
  const std::string study_db = dir + "/results/cut.sqlite";
  std::string rank0_db;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string run_dir = run_dir_of(dir, "cut");
    rank0_db = run_dir + "/rank0.sqlite";
    if (!run_dir.empty() && testing::has_finished_epoch(rank0_db)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The local job id is local-<submitter pid>.<process group>.
  const std::string job_id = db_text(study_db, "SELECT job_id FROM runs");
  const pid_t group = static_cast<pid_t>(std::stol(job_id.substr(job_id.find('.') + 1)));
  REQUIRE(kill(-group, SIGTERM) == 0);
  const int code = cut.wait(290);
  INFO(cut.output());
  REQUIRE(code == 0);

  CHECK(db_text(study_db, "SELECT state || ' ' || attempts FROM runs") == "COMPLETED 2");
  CHECK(db_text(study_db, "SELECT state FROM attempts WHERE attempt = 1") == "PREEMPTED");
  CHECK(db_text(study_db, "SELECT reason FROM attempts WHERE attempt = 1").find("checkpointed") !=
        std::string::npos);
  CHECK(db_text(rank0_db, "SELECT status FROM run") == "completed");
  CHECK(db_number(rank0_db, "SELECT value FROM summary WHERE name = 'attempts'") == 2);
  CHECK(db_number(rank0_db, "SELECT count(DISTINCT global_step) FROM steps") == 120);
  // Seeds, data order and every piece of state resumed: the same final loss, to the bit.
  CHECK(db_number(rank0_db, "SELECT value FROM summary WHERE name = 'final_val_loss'") ==
        uncut_loss);
}

}  // namespace scalestudy
