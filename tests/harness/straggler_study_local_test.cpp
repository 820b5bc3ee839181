// Straggler attribution and measured ceilings end to end on the CPU: a study of 2-rank
// gloo runs of a tiny model in which one rank (rank 0 in half the runs, rank 1 in the
// other) sleeps before every backward (--test-slow-rank), run by the local scheduler,
// ingested and reported. The report must find the slowed rank late beyond chance in
// at least 9 of the 10 runs (10 seeds), and carry each point's calibration figures (GEMM ceiling,
// all-reduce bus bandwidth at the gradient size, no datasheet peak for a CPU). Robust on a loaded
// machine: the slowdown is a sleep, so it is the same however busy the cores are, and at 60 ms it
// is several times the per-step scheduling noise of a loaded 2-core machine; a run is judged by the
// rank last in most of its 10 measured steps, so a few steps in which the other rank was
// descheduled for longer do not change the verdict.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/results/analysis/stragglers.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/local_study.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

constexpr char kStudy[] = R"(study: stragglers
kind: strong
workload:
  model: small-cnn
  dataset: synthetic
  val_samples: 32
  epochs: 1
  steps_per_epoch: 12
  measure_warmup_steps: 2
  optimizer: sgd
  lr: 0.05
  log_interval: 0
  seed: ${repeat}
  threads: 1
  test_slow_rank_ms: 60
matrix: {test_slow_rank: [0, 1]}
scale: [2]
global_batch: 16
repeats: 5
slurm: {ranks_per_node: 2, cpus_per_task: 1}
)";

TEST_CASE("the report names the slowed rank in >= 9 of 10 runs and shows the CPU ceilings") {
  const std::string dir = testing::fresh_dir("straggler-study-local");
  const std::string study = dir + "/stragglers.yaml";
  const std::string results = dir + "/results";
  std::ofstream(study) << kStudy;
  const testing::Finished run = testing::run_study_locally(study, results, 280, dir + "/run.txt");
  if (run.exit_code != 0) FAIL(run.output);

  const nlohmann::json document = testing::json_report(study, results, dir + "/report.json");
  REQUIRE(document["points"].size() == 2);
  int runs = 0, named = 0;
  for (const nlohmann::json& point : document["points"]) {
    const int slowed = std::stoi(point["config"]["test_slow_rank"].get<std::string>());
    for (const nlohmann::json& straggler : point["stragglers"]) {
      ++runs;
      // Late beyond chance by a wait that matters; whether it is also named (stands_out)
      // depends on the host running nothing else, which a loaded test machine cannot promise.
      named += straggler["rank"] == slowed && straggler["late_beyond_chance"] == true;
      CHECK(straggler["steps"] == 10);
      MESSAGE("slowed rank " << slowed << ": named rank " << straggler["rank"] << ", last in "
                             << straggler["last_share"] << " of the steps, wait median "
                             << straggler["wait_median_ms"] << " ms, p " << straggler["p_value"]
                             << " over " << straggler["effective_steps"]
                             << " effective steps, stands out: " << straggler["stands_out"]);
    }
    const nlohmann::json& ceilings = point["ceilings"];
    REQUIRE(ceilings.is_object());
    CHECK(ceilings["device"] == "cpu");
    CHECK(ceilings["peak_tflops"].is_null());
    CHECK(ceilings["mfu"].is_null());
    CHECK(ceilings["peak_note"] == "CPU: no datasheet peak");
    CHECK(ceilings["gemm_tflops"].get<double>() > 0);
    CHECK(ceilings["gemm_fraction"].get<double>() > 0);
    CHECK(ceilings["allreduce_busbw_gbps"].get<double>() > 0);
    CHECK(ceilings["achieved_busbw_gbps"].get<double>() > 0);
    CHECK(ceilings["calibration_pct"].get<double>() > 0);
  }
  CHECK(runs == 10);
  CHECK(named >= 9);
  REQUIRE(document["straggler_hosts"].size() == 1);  // one machine, every run on it
  CHECK(document["straggler_hosts"][0]["runs"] == 10);

  // Every rank recorded the calibration and one arrival per measured step.
  const std::string study_db = results + "/stragglers.sqlite";
  CHECK(testing::db_number(study_db,
                           "SELECT count(*) FROM m_summary WHERE name = "
                           "'ceiling_gemm_tflops' AND value > 0") == 20);
  CHECK(testing::db_number(study_db,
                           "SELECT count(*) FROM m_summary WHERE name = "
                           "'ceiling_allreduce_busbw_gbps' AND value > 0") == 20);
  CHECK(testing::db_number(study_db, "SELECT count(*) FROM m_arrivals") == 200);

  const std::string html = testing::html_report(study, results, dir + "/report.html");
  CHECK(html.find("Stragglers") != std::string::npos);
  CHECK(html.find("GEMM ceiling") != std::string::npos);
  fs::remove_all(dir);
}

// The same runs, unslowed: nobody to name. Five seeds without and five beside a CPU hog (one
// busy process sharing the ranks' cores). Beside the hog a rank can be late for real (it
// shares its core with the hog); the report sees the host's other work and names no
// straggler for it, in any run. Quiet, ranks are late beyond chance by fractions of a
// millisecond (40 quiet runs here, 2026-11-27: p < 0.01 in 4, by waits of 2-16% of an 8 ms
// step); the size a wait must have (2 ms and a tenth of a step), not the p-value, keeps them
// unnamed: none of the 40 was. One of five named is let pass as chance, two are a rule
// that names noise.
TEST_CASE("unslowed runs name no straggler, quiet and beside a CPU hog, which the report sees") {
  const std::string dir = testing::fresh_dir("straggler-study-unslowed");
  std::string unslowed = kStudy;
  unslowed.replace(unslowed.find("matrix: {test_slow_rank: [0, 1]}"),
                   std::string("matrix: {test_slow_rank: [0, 1]}").size(), "");
  for (const bool hog : {false, true}) {
    INFO((hog ? "beside a CPU hog" : "quiet"));
    const std::string name = hog ? "hogged" : "quiet";
    const std::string study = dir + "/" + name + ".yaml";
    const std::string results = dir + "/" + name;
    std::string body = unslowed;
    body.replace(0, std::string("study: stragglers").size(), "study: " + name);
    std::ofstream(study) << body;
    pid_t busy = -1;
    if (hog) {
      busy = fork();
      if (busy == 0) {
        for (volatile uint64_t spin = 0;; spin = spin + 1) {
        }
      }
      REQUIRE(busy > 0);
    }
    const testing::Finished run =
        testing::run_study_locally(study, results, 280, dir + "/" + name + ".txt");
    if (hog) {
      kill(busy, SIGKILL);
      waitpid(busy, nullptr, 0);
    }
    if (run.exit_code != 0) FAIL(run.output);
    const nlohmann::json document =
        testing::json_report(study, results, dir + "/" + name + ".json");
    REQUIRE(document["points"].size() == 1);
    int runs = 0, named = 0;
    for (const nlohmann::json& straggler : document["points"][0]["stragglers"]) {
      ++runs;
      named += straggler["stands_out"] == true;
      MESSAGE(name << ": rank " << straggler["rank"] << " last in " << straggler["last_share"]
                   << " of the steps, wait median " << straggler["wait_median_ms"] << " ms of a "
                   << straggler["step_ms_median"] << " ms step, p " << straggler["p_value"]
                   << ", host's other work " << straggler["host_other_work_cores"] << " cores");
      // The hog is up to a core of work beside the run (less where other tests share the
      // cores too); "quiet" only means no hog of ours, so nothing is asserted there.
      if (hog) CHECK(straggler["host_other_work_cores"].get<double>() > results::kOtherWorkCores);
    }
    CHECK(runs == 5);
    CHECK(named <= (hog ? 0 : 1));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
