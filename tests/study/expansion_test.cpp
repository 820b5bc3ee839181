#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "orchestrator/study/workload_params.hpp"
#include "study_test_util.hpp"

namespace scalestudy {
namespace {

using testing::load_error;
using testing::load_ok;

std::vector<std::string> column(const Study& study, const std::string& key) {
  std::vector<std::string> values;
  for (const auto& run : study.runs) values.push_back(run.params.at(key));
  return values;
}

TEST_CASE("total GPU counts fill nodes of gpus_per_node") {
  Study study = load_ok(R"(
study: s
kind: strong
scale: [1, 2, 4, 8, 12]
global_batch: 480
slurm: {gpus_per_node: 4}
)");
  REQUIRE(study.runs.size() == 5);
  std::vector<int> nodes, tasks, gpus, per_gpu;
  for (const auto& run : study.runs) {
    nodes.push_back(run.nodes);
    tasks.push_back(run.tasks_per_node);
    gpus.push_back(run.slurm.gpus_per_node);
    per_gpu.push_back(run.per_gpu_batch);
    CHECK(run.world_size == run.nodes * run.tasks_per_node);
    CHECK(run.global_batch == 480);
    CHECK(run.params.count("batch_size") == 0);  // one home: per_gpu_batch
    CHECK(workload_params(run).at("batch_size") == std::to_string(run.per_gpu_batch));
  }
  CHECK(nodes == std::vector<int>{1, 1, 1, 2, 3});
  CHECK(tasks == std::vector<int>{1, 2, 4, 4, 4});
  CHECK(gpus == std::vector<int>{1, 2, 4, 4, 4});
  CHECK(per_gpu == std::vector<int>{480, 240, 120, 60, 40});
  CHECK(study.varied_keys == std::vector<std::string>{"world_size"});
  CHECK(study.runs[3].varied == std::map<std::string, std::string>{{"world_size", "8"}});
}

TEST_CASE("weak scaling multiplies the per-GPU batch; CPU ranks play the GPUs' role") {
  Study study = load_ok(R"(
study: s
kind: weak
scale: [1, 2, 4]
per_gpu_batch: 32
slurm: {ranks_per_node: 2}
)");
  REQUIRE(study.runs.size() == 3);
  CHECK(study.runs[2].global_batch == 128);
  CHECK(study.runs[2].per_gpu_batch == 32);
  CHECK(study.runs[2].nodes == 2);
  CHECK(study.runs[2].tasks_per_node == 2);
  CHECK(study.runs[2].slurm.gpus_per_node == 0);
  CHECK(workload_params(study.runs[0]).at("batch_size") == "32");
}

TEST_CASE("uneven_batch: round_down runs floor(global / ranks) per rank") {
  Study study = load_ok(R"(
study: s
kind: strong
scale: [1, 12]
global_batch: 512
uneven_batch: round_down
slurm: {gpus_per_node: 4}
)");
  CHECK(study.runs[1].per_gpu_batch == 42);
  CHECK(study.runs[1].global_batch == 504);
  // The configured batch did not vary, so it is no grouping key.
  CHECK(study.varied_keys == std::vector<std::string>{"world_size"});
}

TEST_CASE("explicit scale points and nodes as a varied key when layouts differ") {
  Study study = load_ok(R"(
study: s
kind: strong
global_batch: 64
scale:
  - {nodes: 1, gpus_per_node: 4}
  - {nodes: 2, gpus_per_node: 2}
  - {nodes: 1, ranks_per_node: 2}
)");
  REQUIRE(study.runs.size() == 3);
  CHECK(study.runs[1].world_size == 4);
  CHECK(study.runs[1].slurm.gpus_per_node == 2);
  CHECK(study.runs[2].slurm.gpus_per_node == 0);
  CHECK(study.varied_keys == std::vector<std::string>{"world_size", "nodes"});
}

TEST_CASE("matrix is cartesian, first axis outermost, then repeats") {
  Study study = load_ok(R"(
study: s
kind: sensitivity
scale: [2]
workload: {model: resnet18, precision: fp32}
matrix:
  precision: [fp32, bf16]
  per_gpu_batch: [64, 128, 256]
repeats: 2
)");
  REQUIRE(study.runs.size() == 12);
  CHECK(study.runs[0].params.at("precision") == "fp32");
  CHECK(study.runs[0].per_gpu_batch == 64);
  CHECK(study.runs[1].repeat == 1);
  CHECK(study.runs[1].per_gpu_batch == 64);
  CHECK(study.runs[2].per_gpu_batch == 128);
  CHECK(study.runs[6].params.at("precision") == "bf16");
  CHECK(study.runs[11].global_batch == 512);
  CHECK(study.varied_keys == std::vector<std::string>{"per_gpu_batch", "precision"});
  CHECK(study.runs[11].varied ==
        std::map<std::string, std::string>{{"per_gpu_batch", "256"}, {"precision", "bf16"}});
  std::set<std::string> ids;
  for (const auto& run : study.runs) ids.insert(run.run_id);
  CHECK(ids.size() == 12);
}

TEST_CASE("zip advances its lists together; groups combine with the matrix") {
  Study study = load_ok(R"(
study: s
matrix: {precision: [fp32, fp16]}
zip:
  - {lr: [0.1, 0.2, 0.4], warmup_steps: [10, 20, 40]}
)");
  REQUIRE(study.runs.size() == 6);
  CHECK(column(study, "lr") == std::vector<std::string>{"0.1", "0.2", "0.4", "0.1", "0.2", "0.4"});
  CHECK(column(study, "warmup_steps") ==
        std::vector<std::string>{"10", "20", "40", "10", "20", "40"});
}

TEST_CASE("exclude and where filter runs") {
  Study study = load_ok(R"yaml(
study: s
kind: strong
global_batch: 256
scale: [1, 2, 4]
matrix: {precision: [fp32, fp16, bf16]}
exclude:
  - {precision: fp16, world_size: 4}
where: ["world_size >= 2 or precision == 'fp32'", "not (precision == 'bf16' and per_gpu_batch < 100)"]
)yaml");
  std::vector<std::string> kept;
  for (const auto& run : study.runs) {
    kept.push_back(std::to_string(run.world_size) + run.params.at("precision"));
  }
  // bf16 at 4 ranks has 64 per GPU (< 100): filtered; fp16 at 4 excluded; 1 rank only fp32.
  CHECK(kept == std::vector<std::string>{"1fp32", "2fp32", "2fp16", "2bf16", "4fp32"});
}

TEST_CASE("references resolve after expansion, across parameters, with $${ as a literal") {
  Study study = load_ok(R"(
study: refs
workload:
  model: resnet18
  dataset: cifar10
  data_root: /data/${dataset}
  tag: ${study}-${workload.model}-n${world_size}-r${repeat}-${data_root}
  literal: "cost $${not_a_reference}"
  seed: ${repeat}
scale: [1, 2]
repeats: 2
env: {RUN_TAG: "${tag}"}
)");
  REQUIRE(study.runs.size() == 4);
  const RunSpec& run = study.runs[3];
  CHECK(run.params.at("data_root") == "/data/cifar10");
  CHECK(run.params.at("tag") == "refs-resnet18-n2-r1-/data/cifar10");
  CHECK(run.params.at("literal") == "cost ${not_a_reference}");
  CHECK(run.params.at("seed") == "1");
  CHECK(run.env.at("RUN_TAG") == run.params.at("tag"));
  CHECK(study.varied_keys == std::vector<std::string>{"world_size", "seed", "tag"});
}

TEST_CASE("extends merges maps deeply (child wins) and defaults fill missing fields") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "scalestudy-extends-test";
  fs::create_directories(dir / "base");
  std::ofstream(dir / "base" / "common.yaml") << R"(
workload: {model: resnet18, lr: 0.1, epochs: 5}
slurm: {partition: gpu, time: "01:00:00", gpus_per_node: 4}
defaults:
  repeats: 3
  env: {NCCL_DEBUG: WARN}
)";
  std::ofstream(dir / "child.yaml") << R"(
extends: base/common.yaml
study: child
workload: {lr: 0.2}
slurm: {time: 30}
env: {OMP_NUM_THREADS: 4}
)";
  Result<Study> loaded = load_study((dir / "child.yaml").string());
  INFO(loaded.status().message());
  REQUIRE(loaded.is_ok());
  const Study& study = *loaded;
  CHECK(study.source_path == (dir / "child.yaml").string());
  REQUIRE(study.runs.size() == 3);  // repeats from the base's defaults
  const RunSpec& run = study.runs[0];
  CHECK(run.params.at("model") == "resnet18");
  CHECK(run.params.at("lr") == "0.2");
  CHECK(run.params.at("epochs") == "5");
  CHECK(run.slurm.partition == "gpu");
  CHECK(run.slurm.time_limit_minutes == 30);
  CHECK(run.slurm.gpus_per_node == 1);
  // The child's env map is laid over the defaults' env map.
  CHECK(run.env ==
        std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}, {"OMP_NUM_THREADS", "4"}});
  fs::remove_all(dir);
}

TEST_CASE("study settings for the other modules") {
  Study study = load_ok(R"(
study: settings
kind: sensitivity
description: demo
scale: [4]
slurm: {gpus_per_node: 4}
matrix: {precision: [fp32, bf16], bucket_cap_mb: [25, 50]}
baseline: {precision: fp32, bucket_cap_mb: 25}
report: {target_gain_pct: 20, thresholds: {efficiency_pct: 70}}
max_attempts: 5
array_throttle: 8
)");
  CHECK(study.name == "settings");
  CHECK(study.kind == StudyKind::kSensitivity);
  CHECK(study.description == "demo");
  CHECK(study.baseline ==
        std::map<std::string, std::string>{{"bucket_cap_mb", "25"}, {"precision", "fp32"}});
  REQUIRE(study.report.target_gain_pct.has_value());
  CHECK(*study.report.target_gain_pct == doctest::Approx(20));
  CHECK(study.report.thresholds.at("efficiency_pct") == doctest::Approx(70));
  CHECK(study.max_attempts == 5);
  CHECK(study.array_throttle == 8);
  CHECK(load_ok("study: d\n").max_attempts == 3);
}

TEST_CASE("every error of a study is reported, not just the first") {
  std::string message = load_error(R"(study: s
repeats: 0
slurm: {mem: lots, time: never}
)");
  CHECK(message.find("inline.yaml:2:10: field 'repeats'") != std::string::npos);
  CHECK(message.find("inline.yaml:3:14: field 'slurm.mem'") != std::string::npos);
  CHECK(message.find("inline.yaml:3:26: field 'slurm.time'") != std::string::npos);
}

TEST_CASE("a target reaches every run as the workload parameter target_<figure>") {
  const Study accuracy = load_ok(
      "study: t\nkind: strong\nworkload: {model: small-cnn}\nscale: [1, 2]\nglobal_batch: 8\n"
      "target: {val_accuracy: 0.88}\n");
  REQUIRE(accuracy.runs.size() == 2);
  for (const RunSpec& run : accuracy.runs) CHECK(run.params.at("target_val_accuracy") == "0.88");
  const Study loss = load_ok(
      "study: t\nkind: custom\nworkload: {model: small-cnn}\nscale: [1]\nper_gpu_batch: 8\n"
      "target: {val_loss: 0.4}\n");
  CHECK(loss.runs.front().params.at("target_val_loss") == "0.4");
  CHECK(loss.runs.front().params.count("target_val_accuracy") == 0);
  const std::string twice = load_error(
      "study: t\nkind: custom\nworkload: {model: small-cnn, target_val_loss: 0.3}\n"
      "scale: [1]\nper_gpu_batch: 8\ntarget: {val_loss: 0.4}\n");
  CHECK(twice.find("inline.yaml:6:10: field 'target.val_loss'") != std::string::npos);
}

}  // namespace
}  // namespace scalestudy
