// How a packed sweep (`allocation: packed`) is cut into allocations that can start: each
// run's step time is estimated (from earlier measured runs of its configuration where they
// exist, else its slurm.time), the runs are placed first-fit, in a seeded shuffled order,
// into allocations whose planned time (the steps' makespan under the pack policy, in the
// order the wrapper takes them, plus a minute for the wrapper's stop lead) stays within the
// cap (the partition's MaxTime, the system's limits.max_time; a run alone may fill it),
// and each allocation asks for its largest run's nodes for that time.
// The one estimator behind `plan --packed`, the GPU-hour budget gate and the submit. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/partition_times.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::sched {

// A measured estimate is the median measured run time (its epochs: no start-up) times this,
// plus kStartupAllowanceS for srun, rendezvous and data loading; never above slurm.time.
inline constexpr double kMeasuredMargin = 1.25;
inline constexpr int kStartupAllowanceS = 60;

// How long a run's step is expected to take, and from what.
struct StepEstimate {
  int seconds = 0;     // 0: nothing to estimate from
  std::string source;  // "measured", "slurm.time"; empty when unknown
};

StepEstimate estimate_step(const RunSpec& run, std::optional<double> measured_median_s);

struct PackedAllocationPlan {
  std::vector<size_t> runs;  // indices into the planned runs, in the order placed
  int nodes = 1;             // the largest run's
  int gpus_per_node = 0;     // the largest of the runs'
  int estimated_s = 0;       // the steps' makespan under the policy
  int time_minutes = 0;      // its time limit; 0: some run has no estimate (partition default)
};

// The steps' makespan in an allocation of the largest run's nodes: their sum for the serial
// policy; for the concurrent one, the wrapper's list schedule (runs largest first, stable in
// the given order, each started as soon as enough nodes are free).
int makespan_s(const std::vector<int>& nodes, const std::vector<int>& seconds, bool concurrent);

// The seed of a packed job's order, from its runs' ids: the same runs, the same order.
uint64_t pack_seed(const std::vector<const RunSpec*>& runs);

// The runs cut into allocations that each fit `cap`, placed first-fit in an order shuffled
// with pack_seed, so no allocation gathers one point of the sweep. With a cap, a run without an
// estimate is planned at the whole cap; without one, no run is split off and the allocation takes
// the partition's default time when some run has no estimate. An error, naming the run and the cap,
// when a run alone cannot fit.
Result<std::vector<PackedAllocationPlan>> plan_packed_allocations(
    const std::vector<const RunSpec*>& runs, const std::vector<StepEstimate>& estimates,
    bool concurrent, const std::optional<TimeCap>& cap);

// The runs planned apart by what they ask of an allocation besides nodes, tasks and time
// (system, partition, account, QOS, constraint, reservation, CPUs per task, memory, GPUs
// per node, extra options), so each allocation's directives are every member's; each group
// under its cap (allocation_time_cap), with `measured_run_s` (run id -> median measured
// seconds) behind the estimates. Indices in the plans are into `runs`.
Result<std::vector<PackedAllocationPlan>> plan_packed_sweep(
    const std::vector<const RunSpec*>& runs, const std::map<std::string, double>& measured_run_s,
    bool concurrent, const PartitionTimes& partitions);

// What the allocations ask for: their runs, and each allocation's time limit × nodes (× GPUs
// per node) in all.
RequestedCost requested_packed_cost(const std::vector<PackedAllocationPlan>& allocations);

}  // namespace scalestudy::sched
