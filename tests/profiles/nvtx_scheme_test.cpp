// The harness's NVTX scheme on a real CPU training run, recorded without Nsight: the
// workload runs with libscalestudy_nvtx_trace.so injected through NVTX_INJECTION64_PATH,
// which writes every push/pop of every domain to a trace; the test reads it back and
// checks names, nesting and counts per step, on 1 rank and on 2 ranks through
// scalestudy-launch. Then the same through the CLI: `scalestudy profile --profile torch`
// on the local scheduler, and `scalestudy profile-report`.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/core/sqlite.hpp"
#include "orchestrator/profiling/nvtx_trace.hpp"

namespace scalestudy::profiling {
namespace {

namespace fs = std::filesystem;

constexpr int kSteps = 3;

std::string bin(const std::string& name) {
  const char* dir = std::getenv("SCALESTUDY_BINARY_DIR");
  REQUIRE(dir != nullptr);
  return std::string(dir) + "/bin/" + name;
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("scalestudy-nvtx-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string train_flags(const fs::path& out_dir) {
  return " --out-dir '" + out_dir.string() +
         "' --dataset synthetic --model small-cnn --epochs 1 --steps-per-epoch " +
         std::to_string(kSteps) +
         " --batch-size 8 --threads 1 --val-samples 16 --bucket-cap-mb 0.05 --log-interval 0";
}

// Runs `command` with the injection library; the output goes to dir/log.
void run_traced(const fs::path& dir, const std::string& command) {
  std::string line = "NVTX_INJECTION64_PATH='" + bin("libscalestudy_nvtx_trace.so") +
                     "' SCALESTUDY_NVTX_TRACE='" + (dir / "trace-rank{rank}.json").string() + "' " +
                     command + " > '" + (dir / "log").string() + "' 2>&1";
  int status = std::system(line.c_str());
  INFO(read_text(dir / "log"));
  REQUIRE(status == 0);
}

// The scheme: per step, on the training thread, one `step` range holding data, forward,
// backward, comm_exposed and optimizer, in that order; no scalestudy range outside a step.
void check_scheme(const fs::path& trace_path) {
  INFO(trace_path.string());
  auto trace = read_nvtx_trace(trace_path.string());
  REQUIRE_MESSAGE(trace.is_ok(), trace.status().message());
  const std::string text = read_text(trace_path);
  size_t begins = 0;
  for (size_t at = text.find("\"ph\":\"B\""); at != std::string::npos;
       at = text.find("\"ph\":\"B\"", at + 1)) {
    ++begins;
  }
  CHECK(begins == trace->ranges.size());  // every range was closed

  std::vector<int> steps;
  std::map<int, std::vector<std::string>> children;
  for (size_t i = 0; i < trace->ranges.size(); ++i) {
    const TraceRange& range = trace->ranges[i];
    if (range.domain != "scalestudy") continue;
    if (range.name == "step") {
      CHECK(range.depth == 0);
      steps.push_back(static_cast<int>(i));
      continue;
    }
    REQUIRE_MESSAGE(range.parent >= 0, "range '" << range.name << "' outside a step");
    if (trace->ranges[range.parent].name == "step") children[range.parent].push_back(range.name);
  }
  REQUIRE(steps.size() == kSteps);
  const std::vector<std::string> phases = {"data", "forward", "backward", "comm_exposed",
                                           "optimizer"};
  for (int step : steps) {
    CHECK(children[step] == phases);
    CHECK(trace->ranges[step].end_us > trace->ranges[step].begin_us);
  }
  for (size_t i = 1; i < steps.size(); ++i) {
    CHECK(trace->ranges[steps[i]].begin_us >= trace->ranges[steps[i - 1]].end_us);
  }
}

int64_t step_rows(const fs::path& run_db) {
  auto db = sqlite::Database::open(run_db.string(), sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto rows = db->query_value("SELECT COUNT(*) FROM steps");
  REQUIRE(rows.is_ok());
  return std::get<int64_t>(**rows);
}

TEST_CASE("one rank: the NVTX ranges of every step, nested and counted") {
  fs::path dir = fresh_dir("one");
  run_traced(dir, "'" + bin("scalestudy-train") + "'" + train_flags(dir / "run"));
  CHECK(step_rows(dir / "run" / "rank0.sqlite") == kSteps);
  check_scheme(dir / "trace-rank0.json");
  fs::remove_all(dir);
}

TEST_CASE("two ranks through scalestudy-launch: one trace per rank, same scheme") {
  fs::path dir = fresh_dir("two");
  run_traced(dir, "'" + bin("scalestudy-launch") + "' --nproc-per-node 2 -- '" +
                      bin("scalestudy-train") + "'" + train_flags(dir / "run"));
  for (int rank : {0, 1}) {
    CHECK(step_rows(dir / "run" / ("rank" + std::to_string(rank) + ".sqlite")) == kSteps);
    check_scheme(dir / ("trace-rank" + std::to_string(rank) + ".json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("scalestudy profile --profile torch, then profile-report") {
  fs::path dir = fresh_dir("cli");
  std::ofstream(dir / "tiny.yaml") << R"(study: tiny
kind: strong
workload: {model: small-cnn, dataset: synthetic, epochs: 1, steps_per_epoch: 3, threads: 1,
           val_samples: 16, log_interval: 0}
scale: [1]
global_batch: 8
slurm: {ranks_per_node: 1, time: "10"}
)";
  const std::string results = (dir / "results").string();
  const std::string plan_line = "'" + bin("scalestudy") + "' plan '" +
                                (dir / "tiny.yaml").string() + "' --format json > '" +
                                (dir / "plan.json").string() + "'";
  REQUIRE(std::system(plan_line.c_str()) == 0);
  const std::string plan = read_text(dir / "plan.json");
  size_t at = plan.find("\"run_id\"");
  REQUIRE(at != std::string::npos);
  at = plan.find('"', plan.find(':', at)) + 1;
  const std::string measured = plan.substr(at, 16);

  const std::string profile_line =
      "'" + bin("scalestudy") + "' profile '" + (dir / "tiny.yaml").string() + "' --run " +
      measured.substr(0, 8) + " --profile torch --scheduler local --results-dir '" + results +
      "' > '" + (dir / "profile.txt").string() + "' 2>&1";
  int status = std::system(profile_line.c_str());
  const std::string profiled_output = read_text(dir / "profile.txt");
  INFO(profiled_output);
  REQUIRE(status == 0);
  CHECK(profiled_output.find("COMPLETED") != std::string::npos);

  auto db = sqlite::Database::open(results + "/tiny.sqlite", sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto runs = db->query("SELECT run_id, profiled, state, out_dir FROM runs");
  REQUIRE(runs.is_ok());
  REQUIRE(runs->size() == 1);  // only the profiled run: the measured one was not touched
  const std::string profiled = sqlite::to_string((*runs)[0][0]);
  CHECK(profiled != measured);
  CHECK(sqlite::to_string((*runs)[0][1]) == "1");
  CHECK(sqlite::to_string((*runs)[0][2]) == "COMPLETED");
  const fs::path out_dir = sqlite::to_string((*runs)[0][3]);
  check_scheme(out_dir / ("trace-" + profiled + "-rank0.json"));

  const std::string report_line = "'" + bin("scalestudy") +
                                  "' profile-report tiny --results-dir '" + results + "' > '" +
                                  (dir / "report.txt").string() + "' 2>&1";
  REQUIRE(std::system(report_line.c_str()) == 0);
  const std::string report = read_text(dir / "report.txt");
  INFO(report);
  CHECK(report.find("run " + profiled + " (nvtx-trace, 1 rank)") != std::string::npos);
  CHECK(report.find("scalestudy:step") != std::string::npos);
  CHECK(report.find("scalestudy:forward") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy::profiling
