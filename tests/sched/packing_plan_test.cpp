#include "orchestrator/sched/packing_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace scalestudy;
using namespace scalestudy::sched;

namespace {

RunSpec run_of(const std::string& id, int nodes, int time_minutes,
               const std::string& partition = "") {
  RunSpec run;
  run.run_id = id;
  run.nodes = nodes;
  run.slurm.time_limit_minutes = time_minutes;
  run.slurm.partition = partition;
  return run;
}

std::vector<const RunSpec*> pointers(const std::vector<RunSpec>& runs) {
  std::vector<const RunSpec*> out;
  for (const RunSpec& run : runs) out.push_back(&run);
  return out;
}

std::vector<StepEstimate> from_limits(const std::vector<RunSpec>& runs) {
  std::vector<StepEstimate> estimates;
  for (const RunSpec& run : runs) estimates.push_back(estimate_step(run, std::nullopt));
  return estimates;
}

// Every run in exactly one allocation.
void check_each_run_once(const std::vector<PackedAllocationPlan>& plans, size_t runs) {
  std::multiset<size_t> placed;
  for (const auto& plan : plans) placed.insert(plan.runs.begin(), plan.runs.end());
  CHECK(placed.size() == runs);
  for (size_t index = 0; index < runs; ++index) CHECK(placed.count(index) == 1);
}

const char kScontrol[] =
    "PartitionName=debug AllowGroups=ALL Default=YES MaxNodes=UNLIMITED MaxTime=UNLIMITED "
    "Nodes=node[1-4] State=UP\n"
    "PartitionName=small AllowGroups=ALL Default=NO MaxNodes=2 MaxTime=00:05:00 Nodes=node[1-2]\n"
    "PartitionName=big AllowGroups=ALL Default=NO MaxTime=1-00:00:00 Nodes=node[1-4]\n";

}  // namespace

TEST_CASE("a step is estimated from measured runs with a margin, else from slurm.time") {
  RunSpec run = run_of("a", 1, 10);
  StepEstimate measured = estimate_step(run, 100.0);
  CHECK(measured.seconds == 125 + kStartupAllowanceS);
  CHECK(measured.source == "measured");
  CHECK(estimate_step(run, 1000.0).seconds == 600);  // never above the run's own limit
  StepEstimate limit = estimate_step(run, std::nullopt);
  CHECK(limit.seconds == 600);
  CHECK(limit.source == "slurm.time");
  CHECK(estimate_step(run_of("b", 1, 0), std::nullopt).seconds == 0);
  CHECK(estimate_step(run_of("b", 1, 0), 30.0).seconds == 38 + kStartupAllowanceS);
}

TEST_CASE("the makespan is the sum for the serial policy, the list schedule for concurrent") {
  const std::vector<int> ladder_nodes = {1, 2, 4, 1, 2, 4};
  const std::vector<int> minute(6, 60);
  CHECK(makespan_s(ladder_nodes, minute, false) == 360);
  // 4, 4, then both 2s side by side, then both 1s.
  CHECK(makespan_s(ladder_nodes, minute, true) == 240);
  // Small runs fill the nodes a large one left: 2 nodes, a 2-node step of 100 s, then the
  // three 1-node steps two at a time.
  CHECK(makespan_s({1, 2, 1, 1}, {10, 100, 10, 10}, true) == 120);
  CHECK(makespan_s({1, 1, 1, 1}, {10, 20, 30, 40}, true) == 100);  // one node: serial
}

TEST_CASE("a sweep longer than the cap is split into allocations that each fit") {
  std::vector<RunSpec> runs;
  for (int index = 0; index < 6; ++index) runs.push_back(run_of("r" + std::to_string(index), 1, 2));
  const TimeCap cap{5, "MaxTime of partition small"};
  auto plans = plan_packed_allocations(pointers(runs), from_limits(runs), false, cap);
  REQUIRE(plans);
  REQUIRE(plans->size() == 3);  // 2 x 2 minutes and a minute of stop lead each
  for (const auto& plan : *plans) {
    CHECK(plan.runs.size() == 2);
    CHECK(plan.estimated_s == 240);
    CHECK(plan.time_minutes == 5);
    CHECK(plan.nodes == 1);
  }
  check_each_run_once(*plans, runs.size());
  // Without a cap: one allocation for the sum and the stop lead.
  auto whole = plan_packed_allocations(pointers(runs), from_limits(runs), false, std::nullopt);
  REQUIRE(whole);
  REQUIRE(whole->size() == 1);
  CHECK(whole->front().time_minutes == 13);
  // The same runs, the same allocations.
  auto again = plan_packed_allocations(pointers(runs), from_limits(runs), false, cap);
  REQUIRE(again);
  for (size_t index = 0; index < plans->size(); ++index) {
    CHECK((*again)[index].runs == (*plans)[index].runs);
  }
}

TEST_CASE("the concurrent policy packs by the list schedule, a run's limit may fill the cap") {
  std::vector<RunSpec> runs = {run_of("a", 4, 2), run_of("b", 2, 2), run_of("c", 2, 2),
                               run_of("d", 1, 2), run_of("e", 1, 2), run_of("f", 1, 5)};
  const TimeCap cap{5, "MaxTime of partition small"};
  auto plans = plan_packed_allocations(pointers(runs), from_limits(runs), true, cap);
  REQUIRE(plans);
  check_each_run_once(*plans, runs.size());
  for (const auto& plan : *plans) {
    CHECK(plan.time_minutes <= 5);
    CHECK((plan.estimated_s + 59) / 60 <= 5);
    int nodes = 0;
    for (size_t index : plan.runs) nodes = std::max(nodes, runs[index].nodes);
    CHECK(plan.nodes == nodes);
  }
  // f's 5 minutes fill a whole allocation: no room for the stop lead's minute on top.
  auto alone = std::find_if(plans->begin(), plans->end(), [](const PackedAllocationPlan& plan) {
    return plan.runs == std::vector<size_t>{5};
  });
  REQUIRE(alone != plans->end());
  CHECK(alone->time_minutes == 5);
}

TEST_CASE("runs side by side leave the stop lead's minute free; a run alone may fill the cap") {
  // Two 2-minute runs and a minute of lead fill 5; 2.5 minutes each would leave no lead.
  std::vector<RunSpec> runs = {run_of("a", 1, 2), run_of("b", 1, 2)};
  std::vector<StepEstimate> estimates = from_limits(runs);
  const TimeCap cap{5, "MaxTime of partition small"};
  auto together = plan_packed_allocations(pointers(runs), estimates, false, cap);
  REQUIRE(together);
  CHECK(together->size() == 1);
  estimates[0].seconds = estimates[1].seconds = 150;
  auto apart = plan_packed_allocations(pointers(runs), estimates, false, cap);
  REQUIRE(apart);
  CHECK(apart->size() == 2);
  estimates[0].seconds = 300;
  auto filled = plan_packed_allocations(pointers(runs), estimates, false, cap);
  REQUIRE(filled);
  for (const auto& plan : *filled) {
    if (plan.runs == std::vector<size_t>{0}) CHECK(plan.time_minutes == 5);
  }
}

TEST_CASE("a run that cannot fit the cap alone is refused, naming it and the cap") {
  std::vector<RunSpec> runs = {run_of("short", 1, 2), run_of("long", 1, 8)};
  auto plans = plan_packed_allocations(pointers(runs), from_limits(runs), false,
                                       TimeCap{5, "MaxTime of partition small"});
  REQUIRE_FALSE(plans);
  CHECK(plans.status().message().find("run long is estimated at 8 min (slurm.time)") !=
        std::string::npos);
  CHECK(plans.status().message().find("5 min MaxTime of partition small") != std::string::npos);
  CHECK(plans.status().message().find("nothing was submitted") != std::string::npos);
}

TEST_CASE("runs without an estimate take the whole cap, or the partition's default time") {
  std::vector<RunSpec> runs = {run_of("known", 1, 2), run_of("unknown", 1, 0)};
  auto capped = plan_packed_allocations(pointers(runs), from_limits(runs), false,
                                        TimeCap{30, "MaxTime of partition big"});
  REQUIRE(capped);
  REQUIRE(capped->size() == 2);
  for (const auto& plan : *capped) CHECK(plan.time_minutes == (plan.runs[0] == 1 ? 30 : 3));
  auto uncapped = plan_packed_allocations(pointers(runs), from_limits(runs), false, std::nullopt);
  REQUIRE(uncapped);
  REQUIRE(uncapped->size() == 1);
  CHECK(uncapped->front().time_minutes == 0);
  CHECK(requested_packed_cost(*uncapped).runs_without_time_limit == 2);  // both its runs
}

TEST_CASE("the allocations' request is each one's time limit x nodes x GPUs, and their runs") {
  std::vector<PackedAllocationPlan> plans(2);
  plans[0].runs = {0, 1, 2};
  plans[1].runs = {3};
  plans[0].nodes = 4;
  plans[0].gpus_per_node = 4;
  plans[0].time_minutes = 30;
  plans[1].nodes = 1;
  plans[1].gpus_per_node = 4;
  plans[1].time_minutes = 60;
  const RequestedCost cost = requested_packed_cost(plans);
  CHECK(cost.runs == 4);
  CHECK(cost.node_hours == doctest::Approx(3.0));
  CHECK(cost.gpu_hours == doctest::Approx(12.0));
}

TEST_CASE("partitions' MaxTime from scontrol, the default's for runs naming none") {
  const PartitionTimes partitions = parse_scontrol_partitions(kScontrol);
  CHECK(partitions.default_partition == "debug");
  CHECK(partitions.max_minutes.count("debug") == 0);  // UNLIMITED
  CHECK(partitions.max_minutes.at("small") == 5);
  CHECK(partitions.max_minutes.at("big") == 1440);
  CHECK_FALSE(allocation_time_cap(partitions, run_of("a", 1, 2)));
  auto small = allocation_time_cap(partitions, run_of("a", 1, 2, "small"));
  REQUIRE(small);
  CHECK(small->minutes == 5);
  CHECK(small->source == "MaxTime of partition small");
  // A named system's limits.max_time, when tighter.
  RunSpec on_system = run_of("a", 1, 2, "big");
  on_system.system.id = "cluster";
  on_system.system.named = true;
  on_system.system.max_time_minutes = 120;
  auto tighter = allocation_time_cap(partitions, on_system);
  REQUIRE(tighter);
  CHECK(tighter->minutes == 120);
  CHECK(tighter->source == "limits.max_time of system cluster");
}

TEST_CASE("each partition's runs are packed apart, under their own cap") {
  std::vector<RunSpec> runs = {run_of("a", 1, 2, "small"), run_of("b", 1, 3, "big"),
                               run_of("c", 1, 3, "small"), run_of("d", 1, 3, "big")};
  auto plans =
      plan_packed_sweep(pointers(runs), {{"c", 20.0}}, false, parse_scontrol_partitions(kScontrol));
  REQUIRE(plans);
  check_each_run_once(*plans, runs.size());
  for (const auto& plan : *plans) {
    std::set<std::string> partitions;
    for (size_t index : plan.runs) partitions.insert(runs[index].slurm.partition);
    CHECK(partitions.size() == 1);
  }
  // small: a (2 min) and c (measured: 25 + 60 s) fit 5 minutes with the stop lead's
  // minute together; big: b and d.
  CHECK(plans->size() == 2);
}

TEST_CASE("runs asking for other memory, GPUs, CPUs, constraint, account or QOS are packed apart") {
  std::vector<RunSpec> runs(8, run_of("same", 1, 2));
  for (size_t index = 0; index < runs.size(); ++index) {
    runs[index].run_id = "r" + std::to_string(index);
  }
  runs[1].slurm.memory_mb = 600;
  runs[2].slurm.gpus_per_node = 4;
  runs[2].nodes = 2;
  runs[3].slurm.cpus_per_task = 8;
  runs[4].slurm.constraint = "fast";
  runs[5].slurm.account = "other";
  runs[6].slurm.qos = "high";
  auto plans = plan_packed_sweep(pointers(runs), {}, false, {});
  REQUIRE(plans);
  check_each_run_once(*plans, runs.size());
  CHECK(plans->size() == 7);  // r0 and r7 alike
  // The budget gate counts what each allocation asks: GPUs only where its runs ask for them.
  const RequestedCost cost = requested_packed_cost(*plans);
  for (const auto& plan : *plans) {
    CHECK(plan.gpus_per_node == (plan.runs == std::vector<size_t>{2} ? 4 : 0));
  }
  CHECK(cost.gpu_hours == doctest::Approx(3 / 60.0 * 2 * 4));  // r2: 3 min x 2 nodes x 4
}
