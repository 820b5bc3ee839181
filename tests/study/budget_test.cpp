// Requested cost of a sweep, the GPU-hour budget check and the interference risks of a
// study's settings, on hand-computed studies.
#include "orchestrator/study/budget.hpp"

#include <doctest/doctest.h>

#include "orchestrator/study/interference_risk.hpp"
#include "orchestrator/study/study.hpp"

using namespace scalestudy;

namespace {

// Strong scaling on 1, 4 and 8 GPUs (4 per node: 1, 1 and 2 nodes), 2 repeats, 90 minutes.
const char* kGpuStudy = R"(study: cost
kind: strong
workload: {model: small-cnn}
scale: [1, 4, 8]
global_batch: 64
repeats: 2
slurm: {gpus_per_node: 4, time: "01:30:00"}
)";

Study load(const std::string& text) {
  auto study = load_study_text(text, "cost.yaml");
  REQUIRE_MESSAGE(study.is_ok(), study.status().message());
  return *study;
}

}  // namespace

TEST_CASE("requested_cost: time limit × nodes × GPUs per node, over every run") {
  const Study study = load(kGpuStudy);
  const RequestedCost cost = requested_cost(study.runs);
  CHECK(cost.runs == 6);
  // Node-hours: 1.5 h × (1 + 1 + 2 nodes) × 2 repeats = 12.
  CHECK(cost.node_hours == doctest::Approx(12));
  // GPU-hours: 1.5 h × (1 + 4 + 8 GPUs) × 2 repeats = 39.
  CHECK(cost.gpu_hours == doctest::Approx(39));
  CHECK(cost.runs_without_time_limit == 0);
  CHECK(describe_cost(cost) ==
        "6 runs, 12.00 node-hours, 39.00 GPU-hours requested (time limit × nodes × GPUs)");
}

TEST_CASE("format_hours: 2 decimals from an hour up, 3 significant digits below") {
  CHECK(format_hours(40.5) == "40.50");
  CHECK(format_hours(0) == "0.00");
  CHECK(format_hours(1.0 / 3) == "0.333");
  CHECK(format_hours(3.3 / 3600) == "0.000917");
}

TEST_CASE("requested_cost: runs without a time limit are counted apart") {
  RunSpec timed;
  timed.nodes = 2;
  timed.slurm.gpus_per_node = 4;
  timed.slurm.time_limit_minutes = 30;
  RunSpec untimed = timed;
  untimed.slurm.time_limit_minutes = 0;
  const RequestedCost cost = requested_cost({timed, untimed});
  CHECK(cost.runs == 2);
  CHECK(cost.node_hours == doctest::Approx(1));
  CHECK(cost.gpu_hours == doctest::Approx(4));
  CHECK(cost.runs_without_time_limit == 1);
  CHECK(describe_cost(cost).find("1 without a time limit not counted") != std::string::npos);
  CHECK_FALSE(check_budget(cost, 100, std::nullopt).is_ok());
}

TEST_CASE("check_budget: refuses over budget, saying by how much and which budget") {
  RequestedCost cost;
  cost.runs = 6;
  cost.gpu_hours = 39;
  CHECK(check_budget(cost, std::nullopt, std::nullopt).is_ok());
  CHECK(check_budget(cost, 40, std::nullopt).is_ok());
  CHECK(check_budget(cost, std::nullopt, 39).is_ok());
  const Status over = check_budget(cost, 50, 30);
  REQUIRE_FALSE(over.is_ok());
  CHECK(over.message() ==
        "over budget by 9.00 GPU-hours: the sweep requests 39.00 GPU-hours, --max-gpu-hours "
        "allows 30.00; nothing was submitted");
  const Status study_budget = check_budget(cost, 35, 100);
  REQUIRE_FALSE(study_budget.is_ok());
  CHECK(study_budget.message().find("by 4.00 GPU-hours") != std::string::npos);
  CHECK(study_budget.message().find("the study's budget.gpu_hours allows 35.00") !=
        std::string::npos);
}

TEST_CASE("budget: the study key is read") {
  const Study study = load(std::string(kGpuStudy) + "budget: {gpu_hours: 20}\n");
  REQUIRE(study.budget_gpu_hours.has_value());
  CHECK(*study.budget_gpu_hours == doctest::Approx(20));
  CHECK_FALSE(
      check_budget(requested_cost(study.runs), study.budget_gpu_hours, std::nullopt).is_ok());
}

TEST_CASE("interference_risks: shared nodes, parallel local runs, more threads than cores") {
  const Study shared = load(kGpuStudy);
  auto risks = interference_risks(shared, {RunPlacement::kCluster, 1, 64});
  REQUIRE(risks.size() == 1);
  CHECK(risks[0].find("6 runs lack slurm.extra: [--exclusive] and array_throttle unset") !=
        std::string::npos);

  const Study exclusive = load(std::string(kGpuStudy) + "array_throttle: 1\n");
  CHECK(interference_risks(exclusive, {RunPlacement::kCluster, 1, 64}).empty());
  const Study exclusive_option = load(
      "study: x\nkind: strong\nworkload: {model: small-cnn}\nscale: [1, 4]\nglobal_batch: 64\n"
      "slurm: {gpus_per_node: 4, extra: [--exclusive]}\narray_throttle: 4\n");
  CHECK(interference_risks(exclusive_option, {RunPlacement::kCluster, 1, 64}).empty());

  // Local: 8 ranks × 1 CPU on a 2-thread host, 2 runs at once.
  const Study cpu = load(
      "study: local\nkind: strong\nworkload: {model: small-cnn}\nscale: [1, 8]\n"
      "global_batch: 64\nslurm: {ranks_per_node: 8}\n");
  risks = interference_risks(cpu, {RunPlacement::kThisHost, 2, 2});
  REQUIRE(risks.size() == 2);
  CHECK(risks[0].find("runs 2 runs at once") != std::string::npos);
  CHECK(risks[1].find("needs 8 threads (ranks × cpus_per_task) but this host has 2") !=
        std::string::npos);
  CHECK(interference_risks(cpu, {RunPlacement::kThisHost, 1, 8}).empty());
  // Plan (scheduler not known): the CPU study may run locally, the GPU study is not warned.
  CHECK(interference_risks(cpu, {RunPlacement::kUnknown, 1, 2}).size() == 2);
  CHECK(interference_risks(shared, {RunPlacement::kUnknown, 1, 2}).size() == 1);
}
