#include "orchestrator/study/run_id.hpp"

#include <doctest/doctest.h>

#include "study_test_util.hpp"

namespace scalestudy {
namespace {

using testing::load_ok;

std::vector<std::string> ids(const Study& study) {
  std::vector<std::string> out;
  for (const auto& run : study.runs) out.push_back(run.run_id);
  return out;
}

const char kBlockStyle[] = R"(
study: ids
kind: strong
workload:
  model: resnet18
  lr: 0.10
  seed: 042
  amp: True
scale: [1, 2]
global_batch: 64
slurm:
  partition: gpu
  time: "00:30:00"
  mem: 4096M
env: {A: "1", B: "2"}
repeats: 2
)";

// The same content: other key order, flow style, other spellings of the same numbers.
const char kFlowStyle[] = R"(
slurm: {mem: 4G, time: 30, partition: gpu}
repeats: 2
env: {B: "2", A: "1"}
global_batch: 64
scale: [1, 2]
workload: {amp: true, seed: 42, lr: 1e-1, model: resnet18}
kind: strong
study: ids
)";

TEST_CASE("FNV-1a 128 matches the published test vectors") {
  CHECK(fnv1a_128_hex("") == "6c62272e07bb014262b821756295c58d");
  CHECK(fnv1a_128_hex("a") == "d228cb696f1a8caf78912b704e4a8964");
}

TEST_CASE("run ids do not depend on key order or YAML spelling") {
  Study block = load_ok(kBlockStyle);
  Study flow = load_ok(kFlowStyle);
  REQUIRE(block.runs.size() == 4);
  CHECK(ids(block) == ids(flow));
  CHECK(block.runs[0].run_id.size() == 16);
  CHECK(block.runs[0].run_id.find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("any change of what runs changes the run id") {
  std::string base_id = load_ok(kBlockStyle).runs[0].run_id;
  const std::pair<const char*, const char*> kEdits[] = {
      {"lr: 0.10", "lr: 0.11"},
      {"model: resnet18", "model: resnet50"},
      {"partition: gpu", "partition: gpu2"},
      {"mem: 4096M", "mem: 4097M"},
      {"A: \"1\"", "A: \"1 \""},
      {"study: ids", "study: ids2"},
      {"global_batch: 64", "global_batch: 128"},
  };
  for (const auto& [from, to] : kEdits) {
    std::string edited = kBlockStyle;
    edited.replace(edited.find(from), std::string(from).size(), to);
    CAPTURE(to);
    CHECK(load_ok(edited).runs[0].run_id != base_id);
  }
  // The repeat index is part of the content.
  Study study = load_ok(kBlockStyle);
  CHECK(study.runs[0].run_id != study.runs[1].run_id);
  // A quoted "042" is text, not the number 42.
  std::string quoted = kBlockStyle;
  quoted.replace(quoted.find("seed: 042"), 9, "seed: \"042\"");
  CHECK(load_ok(quoted).runs[0].run_id != base_id);
}

TEST_CASE("run ids of existing runs survive adding runs to the study") {
  std::string more = kBlockStyle;
  more.replace(more.find("scale: [1, 2]"), 13, "scale: [1, 2, 4]");
  std::vector<std::string> grown = ids(load_ok(more));
  REQUIRE(grown.size() == 6);
  grown.resize(4);
  CHECK(grown == ids(load_ok(kBlockStyle)));
}

TEST_CASE("golden run id: a change of the hash or serialisation is noticed") {
  RunSpec spec;
  spec.study = "golden";
  spec.kind = StudyKind::kStrong;
  spec.repeat = 1;
  spec.nodes = 2;
  spec.tasks_per_node = 4;
  spec.world_size = 8;
  spec.global_batch = 512;
  spec.per_gpu_batch = 64;
  spec.workload = "scalestudy-train";
  // batch_size is not stored in params (workload_params() derives it from per_gpu_batch):
  // the id must be the one computed when it was.
  spec.params = {{"lr", "0.1"}, {"model", "resnet18"}};
  spec.slurm.partition = "gpu";
  spec.slurm.time_limit_minutes = 30;
  spec.slurm.gpus_per_node = 4;
  spec.modules = {"cuda/12.2"};
  spec.env = {{"NCCL_SOCKET_IFNAME", "ib0"}};
  // Not part of the content:
  spec.varied = {{"world_size", "8"}};
  spec.run_id = "ignored";
  CHECK(compute_run_id(spec) == "cf532d39f0edb9dd");
}

}  // namespace
}  // namespace scalestudy
