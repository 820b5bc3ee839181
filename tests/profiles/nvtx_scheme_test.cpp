// The harness's NVTX scheme on a real CPU training run, recorded without Nsight: the
// workload runs with libscalestudy_nvtx_trace.so injected through NVTX_INJECTION64_PATH,
// which writes every push/pop/mark of every domain to a trace; the test reads it back and
// checks names, nesting, counts and payloads per step, eval ranges per epoch and the
// --profile-steps marks, on 1 rank and on 2 ranks through scalestudy-launch; the same
// for scalestudy-allreduce's timed runs. Then the
// same through the CLI: `scalestudy profile --profile torch` on the local scheduler, and
// `scalestudy profile-report`.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

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

std::string train_flags(const fs::path& out_dir, int epochs) {
  return " --out-dir '" + out_dir.string() + "' --dataset synthetic --model small-cnn --epochs " +
         std::to_string(epochs) + " --steps-per-epoch " + std::to_string(kSteps) +
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

double summary_value(const fs::path& run_db, const std::string& name) {
  auto db = sqlite::Database::open(run_db.string(), sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto value = db->query_value("SELECT value FROM summary WHERE name = ?", {name});
  REQUIRE(value.is_ok());
  REQUIRE_MESSAGE(value->has_value(), "summary '" << name << "' missing in " << run_db);
  return std::get<double>(**value);
}

int64_t step_rows(const fs::path& run_db) {
  auto db = sqlite::Database::open(run_db.string(), sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto rows = db->query_value("SELECT COUNT(*) FROM steps");
  REQUIRE(rows.is_ok());
  return std::get<int64_t>(**rows);
}

// What a run was asked to do, hence what its trace must show.
struct Scheme {
  int ranks = 1;  // one rank has no all-reduce and no comm_exposed phase
  int epochs = 1;
  int steps_per_epoch = kSteps;
  std::string allreduce_parent = "backward";  // comm_exposed without overlap
  std::optional<std::pair<int, int>> profile_steps;
};

// The trace's ranges as a tree: each range's children and the top-level ranges, in order.
struct RangeTree {
  std::vector<std::vector<int>> children;
  std::vector<int> top;
  std::set<std::string> names;
};

RangeTree range_tree(const NvtxTrace& trace) {
  RangeTree tree;
  tree.children.resize(trace.ranges.size());
  for (size_t i = 0; i < trace.ranges.size(); ++i) {
    const TraceRange& range = trace.ranges[i];
    REQUIRE(range.domain == "scalestudy");
    tree.names.insert(range.name);
    if (range.parent < 0) {
      tree.top.push_back(static_cast<int>(i));
    } else {
      tree.children[range.parent].push_back(static_cast<int>(i));
    }
  }
  return tree;
}

// Every range the trace file begins ("ph":"B") was read back as a closed range.
void check_every_range_closed(const fs::path& trace_path, const NvtxTrace& trace) {
  const std::string text = read_text(trace_path);
  size_t begins = 0;
  for (size_t at = text.find("\"ph\":\"B\""); at != std::string::npos;
       at = text.find("\"ph\":\"B\"", at + 1)) {
    ++begins;
  }
  CHECK(begins == trace.ranges.size());  // every range was closed
}

// The range names in use and the top level: per epoch its steps, then one eval.
void check_top_level(const NvtxTrace& trace, const RangeTree& tree, const Scheme& scheme) {
  std::set<std::string> expected_names = {"step",     "data",      "forward",
                                          "backward", "optimizer", "eval"};
  if (scheme.ranks > 1) expected_names.insert({"comm_exposed", "allreduce"});
  CHECK(tree.names == expected_names);

  std::vector<std::string> expected_top;
  for (int epoch = 1; epoch <= scheme.epochs; ++epoch) {
    expected_top.insert(expected_top.end(), scheme.steps_per_epoch, "step");
    expected_top.push_back("eval");
  }
  std::vector<std::string> top_names;
  for (int index : tree.top) top_names.push_back(trace.ranges[index].name);
  REQUIRE(top_names == expected_top);
}

// What the gradient all-reduces of a run add up to, from its run database.
struct GradientTotals {
  int64_t bytes = 0;
  size_t buckets = 0;
};

// One step's phases in order (payload: the step), and its all-reduces inside
// `allreduce_parent`, one per bucket, their payloads summing to the gradient bytes.
void check_step_phases(const NvtxTrace& trace, const RangeTree& tree, int step_index, int64_t step,
                       const Scheme& scheme, const GradientTotals& gradients) {
  const bool reduces = scheme.ranks > 1;
  std::vector<std::string> phases = {"data", "forward", "backward", "optimizer"};
  if (reduces) phases.insert(phases.begin() + 3, "comm_exposed");
  std::vector<std::string> phase_names;
  size_t allreduces = 0;
  int64_t allreduce_bytes = 0;
  for (int phase : tree.children[step_index]) {
    const TraceRange& phase_range = trace.ranges[phase];
    phase_names.push_back(phase_range.name);
    CHECK(phase_range.payload == step);
    for (int inner : tree.children[phase]) {
      const TraceRange& allreduce = trace.ranges[inner];
      CHECK(allreduce.name == "allreduce");
      CHECK(phase_range.name == scheme.allreduce_parent);
      CHECK(tree.children[inner].empty());
      REQUIRE(allreduce.payload.has_value());
      CHECK(*allreduce.payload > 0);
      allreduce_bytes += *allreduce.payload;
      ++allreduces;
    }
  }
  CHECK(phase_names == phases);
  CHECK(allreduces == (reduces ? gradients.buckets : 0));
  CHECK(allreduce_bytes == (reduces ? gradients.bytes : 0));
}

// The top-level ranges on one thread, in time order: eval ranges carry their epoch and
// nothing inside; step ranges carry the global step. Returns the step ranges.
std::vector<const TraceRange*> check_steps_and_evals(const NvtxTrace& trace, const RangeTree& tree,
                                                     const Scheme& scheme,
                                                     const GradientTotals& gradients) {
  std::vector<const TraceRange*> steps;
  int64_t epoch = 0;
  for (int index : tree.top) {
    const TraceRange& range = trace.ranges[index];
    CHECK(range.tid == trace.ranges[tree.top.front()].tid);
    CHECK(range.end_us > range.begin_us);
    if (range.name == "eval") {
      CHECK(range.payload == ++epoch);
      CHECK(tree.children[index].empty());
      continue;
    }
    const int64_t step = static_cast<int64_t>(steps.size());
    INFO("step " << step);
    CHECK(range.payload == step);
    if (!steps.empty()) CHECK(range.begin_us >= steps.back()->end_us);
    steps.push_back(&range);
    check_step_phases(trace, tree, index, step, scheme, gradients);
  }
  return steps;
}

// With a profile window, the profiler_start / profiler_stop marks sit between the steps
// before FROM and TO and those steps; without one there are no marks.
void check_profile_marks(const NvtxTrace& trace, const std::vector<const TraceRange*>& steps,
                         const Scheme& scheme) {
  if (!scheme.profile_steps) {
    CHECK(trace.marks.empty());
    return;
  }
  const auto [from, to] = *scheme.profile_steps;
  REQUIRE(trace.marks.size() == 2);
  const std::pair<const char*, int> edges[] = {{"profiler_start", from}, {"profiler_stop", to}};
  for (size_t i = 0; i < 2; ++i) {
    const TraceMark& mark = trace.marks[i];
    const int step = edges[i].second;
    INFO(mark.name << " before step " << step);
    CHECK(mark.domain == "scalestudy");
    CHECK(mark.name == edges[i].first);
    CHECK(mark.payload == step);
    CHECK(mark.tid == steps.front()->tid);
    if (step > 0) CHECK(mark.at_us >= steps[step - 1]->end_us);
    if (step < static_cast<int>(steps.size())) CHECK(mark.at_us <= steps[step]->begin_us);
  }
}

// The scheme (docs/profiling.md), all in the `scalestudy` domain on the training thread:
// per epoch, its steps then one `eval` (payload: the epoch); per step one `step` (payload:
// the global step) holding data, forward, backward, comm_exposed and optimizer in that
// order (payload: the step again; comm_exposed only with several ranks), and with several
// ranks one `allreduce` per gradient bucket inside `allreduce_parent` (payload: the bucket's
// bytes, summing to the model's gradient bytes).
// With a profile window, the profiler_start / profiler_stop marks sit between the steps
// before FROM and TO and those steps.
void check_scheme(const fs::path& trace_path, const fs::path& run_db, const Scheme& scheme) {
  INFO(trace_path.string());
  auto trace = read_nvtx_trace(trace_path.string());
  REQUIRE_MESSAGE(trace.is_ok(), trace.status().message());
  check_every_range_closed(trace_path, *trace);

  GradientTotals gradients;
  gradients.bytes = static_cast<int64_t>(summary_value(run_db, "gradient_bytes"));
  gradients.buckets = static_cast<size_t>(summary_value(run_db, "bucket_count"));
  CHECK(gradients.bytes == static_cast<int64_t>(summary_value(run_db, "parameters")) * 4);  // fp32

  const RangeTree tree = range_tree(*trace);
  check_top_level(*trace, tree, scheme);
  const std::vector<const TraceRange*> steps =
      check_steps_and_evals(*trace, tree, scheme, gradients);
  check_profile_marks(*trace, steps, scheme);
}

// Two epochs, the profiler window over global steps 1 to 3 (across the first eval).
Scheme two_epochs_windowed(int ranks) {
  return Scheme{ranks, 2, kSteps, "backward", std::pair<int, int>{1, 4}};
}
const std::string kWindowFlags = " --profile-steps 1:4";

TEST_CASE("one rank: every step's ranges, nested, counted, with payloads; eval; window") {
  fs::path dir = fresh_dir("one");
  run_traced(dir, "'" + bin("scalestudy-train") + "'" + train_flags(dir / "run", 2) + kWindowFlags);
  CHECK(step_rows(dir / "run" / "rank0.sqlite") == 2 * kSteps);
  CHECK(summary_value(dir / "run" / "rank0.sqlite", "bucket_count") > 1);
  check_scheme(dir / "trace-rank0.json", dir / "run" / "rank0.sqlite", two_epochs_windowed(1));
  fs::remove_all(dir);
}

TEST_CASE("two ranks without overlap: one all-reduce per step, in comm_exposed") {
  fs::path dir = fresh_dir("no-overlap");
  run_traced(dir, "'" + bin("scalestudy-launch") + "' --nproc-per-node 2 -- '" +
                      bin("scalestudy-train") + "'" + train_flags(dir / "run", 1) +
                      " --overlap false");
  CHECK(summary_value(dir / "run" / "rank0.sqlite", "bucket_count") == 1);
  check_scheme(dir / "trace-rank0.json", dir / "run" / "rank0.sqlite",
               Scheme{2, 1, kSteps, "comm_exposed", std::nullopt});
  fs::remove_all(dir);
}

TEST_CASE("two ranks through scalestudy-launch: one trace per rank, same scheme") {
  fs::path dir = fresh_dir("two");
  run_traced(dir, "'" + bin("scalestudy-launch") + "' --nproc-per-node 2 -- '" +
                      bin("scalestudy-train") + "'" + train_flags(dir / "run", 2) + kWindowFlags);
  for (int rank : {0, 1}) {
    const fs::path run_db = dir / "run" / ("rank" + std::to_string(rank) + ".sqlite");
    CHECK(step_rows(run_db) == 2 * kSteps);
    check_scheme(dir / ("trace-rank" + std::to_string(rank) + ".json"), run_db,
                 two_epochs_windowed(2));
  }
  fs::remove_all(dir);
}

// scalestudy-allreduce: one `step` per timed run, numbered across the sweep, each holding
// one `allreduce` whose payload is the message's bytes; no ranges for the correctness
// check and warm-up runs; the --profile-steps marks between the steps around the window.
TEST_CASE("scalestudy-allreduce: a step range per timed run, the message bytes, the window") {
  fs::path dir = fresh_dir("allreduce");
  run_traced(dir, "'" + bin("scalestudy-allreduce") + "' --out-dir '" + (dir / "run").string() +
                      "' --min-bytes 1K --max-bytes 4K --iters 3 --warmup-iters 2 --threads 1"
                      " --telemetry-interval-ms 0 --profile-steps 2:5");
  auto trace = read_nvtx_trace((dir / "trace-rank0.json").string());
  REQUIRE_MESSAGE(trace.is_ok(), trace.status().message());
  const std::vector<int64_t> sizes = {1024, 2048, 4096};
  std::vector<const TraceRange*> steps;
  for (const TraceRange& range : trace->ranges) {
    if (range.parent < 0) steps.push_back(&range);
  }
  REQUIRE(steps.size() == sizes.size() * 3);
  REQUIRE(trace->ranges.size() == 2 * steps.size());
  for (size_t step = 0; step < steps.size(); ++step) {
    INFO("step " << step);
    CHECK(steps[step]->name == "step");
    CHECK(steps[step]->payload == static_cast<int64_t>(step));
    if (step > 0) CHECK(steps[step]->begin_us >= steps[step - 1]->end_us);
  }
  for (const TraceRange& range : trace->ranges) {
    if (range.parent < 0) continue;
    const TraceRange& step = trace->ranges[range.parent];
    INFO("step " << step.payload.value_or(-1));
    CHECK(step.parent < 0);
    CHECK(range.name == "allreduce");
    CHECK(range.payload == sizes[static_cast<size_t>(*step.payload / 3)]);
  }
  REQUIRE(trace->marks.size() == 2);
  CHECK(trace->marks[0].name == "profiler_start");
  CHECK(trace->marks[0].payload == 2);
  CHECK(trace->marks[0].at_us >= steps[1]->end_us);
  CHECK(trace->marks[0].at_us <= steps[2]->begin_us);
  CHECK(trace->marks[1].name == "profiler_stop");
  CHECK(trace->marks[1].payload == 5);
  CHECK(trace->marks[1].at_us >= steps[4]->end_us);
  CHECK(trace->marks[1].at_us <= steps[5]->begin_us);
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
  check_scheme(out_dir / ("trace-" + profiled + "-rank0.json"), out_dir / "rank0.sqlite", Scheme{});

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
