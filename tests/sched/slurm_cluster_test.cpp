// The slurm and slurmrest backends on the real local SLURM cluster (slurm/cluster/), driven
// through the `scalestudy` CLI. Needs root and the cluster scripts; skipped otherwise. The
// cluster is started here and stopped at the end unless it was already running.
//
// Test cases run in file order: the TIMEOUT study (minutes) is submitted first and checked
// last, so it runs while the other cases do their work.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "harness/core/sqlite.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/slurm_cluster_session.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

// The run's (state, job id) from `status --format json`.
std::pair<std::string, std::string> run_state(const nlohmann::json& status,
                                              const std::string& run_id) {
  for (const auto& run : status["runs"]) {
    if (run["run_id"] == run_id) return {run["state"], run["job_id"]};
  }
  return {"", ""};
}

// sacct's "JobName|State" lines for every job of a user since `since`.
std::map<std::string, int> sacct_jobs_per_name(const std::string& since,
                                               const std::string& prefix) {
  auto listed = run_process(
      {{"sacct", "-X", "-n", "--parsable2", "-a", "-S", since, "--format=JobName,JobID"},
       {},
       30'000});
  REQUIRE(listed.is_ok());
  std::map<std::string, int> counts;
  std::stringstream lines(listed->stdout_text);
  for (std::string line; std::getline(lines, line);) {
    std::string name = line.substr(0, line.find('|'));
    if (name.rfind(prefix, 0) == 0) ++counts[name];
  }
  return counts;
}

std::string sacct_now() {
  std::time_t now = std::time(nullptr) - 5;
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  return text;
}

// The training workload when it is built, else the fake one; both are checked by outcome.
std::string two_by_two_workload(const fs::path& dir, bool* real) {
  const std::string train = binary_dir() + "/scalestudy-train";
  *real = fs::exists(train) && fs::exists("/usr/share/datasets/fashion-mnist");
  if (*real) {
    return "workload: {binary: " + train +
           ", model: small-cnn, dataset: fashion-mnist, data_root: "
           "/usr/share/datasets/fashion-mnist,"
           " epochs: 1, steps_per_epoch: 8, warmup_steps: 2, precision: fp32, optimizer: sgd,"
           " lr: 0.05, seed: 1}\nglobal_batch: 64\n";
  }
  return "workload: {binary: " + write_fake_workload(dir) + ", sleep_s: 1}\n";
}

void check_two_by_two(const std::string& scheduler) {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / ("two_by_two_" + scheduler);
  bool real = false;
  std::string study = write_study(dir, "twobytwo-" + scheduler,
                                  "kind: custom\n" + two_by_two_workload(dir, &real) +
                                      "scale: [{nodes: 2, ranks_per_node: 2}]\nlauncher: srun\n"
                                      "slurm: {time: \"5\"}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  submit_then_wait(study, results, {"--scheduler", scheduler});
  auto status = status_of(study, results);
  REQUIRE(status["runs"].size() == 1);
  const std::string out_dir = status["runs"][0]["out_dir"];
  if (real) {
    for (int rank = 0; rank < 4; ++rank) {
      CHECK(fs::exists(out_dir + "/rank" + std::to_string(rank) + ".sqlite"));
    }
  } else {
    CHECK(count_lines(out_dir + "/executions.txt") == 4);  // 4 ranks, one execution
  }
}

// An unmodified DDP script (init_process_group() from the environment) on 2 nodes x 1
// rank, measured by the line each rank prints.
void check_script_rendezvous(const std::string& launcher) {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / ("rendezvous_" + launcher);
  const std::string script = write_rendezvous_script(dir);
  std::string study = write_study(dir, "rendezvous-" + launcher,
                                  "workload: {binary: /usr/bin/python3, args: [" + script +
                                      "], run_flags: false}\n"
                                      "scale: [{nodes: 2, ranks_per_node: 1}]\n"
                                      "launcher: " +
                                      launcher +
                                      "\nslurm: {time: \"5\"}\nmax_attempts: 1\n"
                                      "metrics:\n"
                                      "  sum: {pattern: 'sum ([0-9]+)', reduce: min}\n"
                                      "  world: {pattern: 'of ([0-9]+) local', reduce: max}\n");
  const std::string results = (dir / "results").string();
  ProcessResult ran = run_cli({"run", study, "--scheduler", "slurm", "--results-dir", results,
                               "--poll-interval", "1", "--timeout", "240", "--no-plots"},
                              300'000);
  INFO(ran.stdout_text << ran.stderr_text);
  CHECK(ran.exit_code == 0);
  auto db = scalestudy::sqlite::Database::open(results + "/rendezvous-" + launcher + ".sqlite",
                                               scalestudy::sqlite::OpenMode::kReadOnly);
  REQUIRE(db);
  auto rows = db->query("SELECT name, value FROM m_output_metrics ORDER BY name");
  REQUIRE(rows);
  REQUIRE(rows->size() == 2);
  CHECK(std::get<double>((*rows)[0][1]) == 3);  // sum: 1 + 2, the same on every rank
  CHECK(std::get<double>((*rows)[1][1]) == 2);  // world size
}

const char kTimeoutStudy[] = "timeout";

}  // namespace

TEST_CASE("[submit] a run past its time limit: the TIMEOUT study is submitted") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / kTimeoutStudy;
  // Four runs of one shape (one job array): two finish, two outlive their 1-minute limit.
  // One of those ignores the script's early SIGTERM (--signal) so the limit itself ends it
  // (TIMEOUT); the other dies of that signal (FAILED 143): both are the limit's (class time).
  std::string study = write_study(dir, kTimeoutStudy,
                                  "workload: {binary: " + write_fake_workload(dir) +
                                      "}\nmatrix: {sleep_s: [1, 400], ignore_term: [0, 1]}\n"
                                      "slurm: {time: \"1\"}\n"
                                      "max_attempts: 2\n");
  ProcessResult submitted = run_cli(
      {"submit", study, "--scheduler", "slurm", "--results-dir", (dir / "results").string()});
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  CHECK(submitted.stdout_text.find("_1") != std::string::npos);  // array task ids
}

TEST_CASE("a 2-node x 2-rank run completes via slurm") {
  check_two_by_two("slurm");
}

TEST_CASE("a 2-node x 2-rank run completes via slurmrest") {
  check_two_by_two("slurmrest");
}

TEST_CASE("an unmodified DDP script meets its peers under srun") {
  check_script_rendezvous("srun");
}

TEST_CASE("an unmodified DDP script meets its peers under the torchrun-style launcher") {
  check_script_rendezvous("torchrun");
}

TEST_CASE("a run killed with scancel is exactly the one resubmitted; nothing is duplicated") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "scancel";
  std::string study = write_study(dir, "scancel6",
                                  "workload: {binary: " + write_fake_workload(dir) +
                                      ", sleep_s: 15}\nmatrix: {tag: [1, 2, 3, 4, 5, 6]}\n"
                                      "slurm: {time: \"5\"}\n");
  const std::string results = (dir / "results").string();
  const std::string since = sacct_now();
  // One job per run, so sacct's job names (<study>-<run id>) tell the runs apart.
  ProcessResult submitted =
      run_cli({"submit", study, "--scheduler", "slurm", "--no-arrays", "--results-dir", results});
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);

  auto status = status_of(study, results);
  REQUIRE(status["runs"].size() == 6);
  const std::string victim = status["runs"][2]["run_id"];
  std::string victim_job;
  for (int i = 0; i < 60; ++i) {
    auto [state, job] = run_state(status_of(study, results), victim);
    victim_job = job;
    if (state == "RUNNING") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  REQUIRE(run_process({{"scancel", victim_job}, {}, 30'000})->succeeded());
  ProcessResult first_wait =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "120"},
              180'000);
  CHECK(first_wait.exit_code == 1);
  CHECK(first_wait.stderr_text.find("run " + victim + ": CANCELLED") != std::string::npos);

  ProcessResult again =
      run_cli({"submit", study, "--scheduler", "slurm", "--no-arrays", "--results-dir", results});
  INFO(again.stdout_text << again.stderr_text);
  REQUIRE(again.exit_code == 0);
  CHECK(again.stdout_text.find("1 submitted, 5 completed") != std::string::npos);
  CHECK(again.stdout_text.find(victim + " -> ") != std::string::npos);
  ProcessResult second_wait =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "120"},
              180'000);
  CHECK(second_wait.exit_code == 0);

  auto per_name = sacct_jobs_per_name(since, "scancel6-");
  REQUIRE(per_name.size() == 6);
  for (const auto& run : status_of(study, results)["runs"]) {
    const std::string run_id = run["run_id"];
    CHECK(per_name["scancel6-" + run_id] == (run_id == victim ? 2 : 1));
    CHECK(run["attempts"] == (run_id == victim ? 2 : 1));
    CHECK(run["state"] == "COMPLETED");
  }
}

TEST_CASE("[check] the TIMEOUT run is retried up to max_attempts, then reported failed") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / kTimeoutStudy;
  const std::string study = (dir / (std::string(kTimeoutStudy) + ".yaml")).string();
  const std::string results = (dir / "results").string();
  REQUIRE(fs::exists(study));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(6);
  int resubmissions = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    ProcessResult waited = run_cli(
        {"wait", study, "--results-dir", results, "--poll-interval", "2", "--timeout", "240"},
        300'000);
    auto status = status_of(study, results);
    if (status["to_retry"] == 0 && status["in_flight"] == 0) break;
    if (status["to_retry"] > 0) {  // as `run` does: resubmit what may be retried
      ++resubmissions;
      REQUIRE(
          run_cli({"submit", study, "--scheduler", "slurm", "--results-dir", results}).exit_code ==
          0);
    }
  }
  CHECK(resubmissions >= 1);
  auto status = status_of(study, results);
  CHECK(status["completed"] == 2);
  CHECK(status["failed"] == 2);
  for (const auto& run : status["runs"]) {
    if (run["state"] == "COMPLETED") continue;
    CAPTURE(run["failure_evidence"]);
    CHECK(run["failure_class"] == "time");  // not a node's: retried once, not 3 times
    CHECK(run["attempts"] == 2);
  }
  ProcessResult final_wait = run_cli({"wait", study, "--results-dir", results});
  CHECK(final_wait.exit_code == 1);
  CHECK(final_wait.stderr_text.find("TIMEOUT after 2 attempts") != std::string::npos);
  CHECK(final_wait.stderr_text.find("SIGTERM") != std::string::npos);
}
