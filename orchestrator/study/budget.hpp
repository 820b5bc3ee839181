// What a sweep asks the cluster for before anything runs: runs, node-hours and GPU-hours
// requested (each run's time limit × nodes × GPUs per node), and whether that fits a
// GPU-hour budget (`budget: {gpu_hours: H}` in the study, `submit --max-gpu-hours H`).
// A packed sweep's request is its allocations' (sched/packing_plan.hpp). Pure functions
// over RunSpecs; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy {

struct RequestedCost {
  int runs = 0;
  double node_hours = 0;            // time limit × nodes, over runs with a time limit
  double gpu_hours = 0;             // time limit × nodes × GPUs per node (0 for CPU runs)
  int runs_without_time_limit = 0;  // the partition's default: not counted above
};

RequestedCost requested_cost(const std::vector<RunSpec>& runs);

// Hours for people: 2 decimals from 1 h up ("40.50"), 3 significant digits below ("0.0833").
std::string format_hours(double hours);

// "15 runs, 25.00 node-hours, 100.00 GPU-hours requested (time limit × nodes × GPUs)",
// plus how many runs have no time limit and are not counted.
std::string describe_cost(const RequestedCost& cost);

// An error saying by how much the request exceeds the tighter of the two budgets (either
// may be absent), or that runs without a time limit cannot be checked against one; ok
// when no budget is set or the request fits.
Status check_budget(const RequestedCost& cost, std::optional<double> study_budget_gpu_hours,
                    std::optional<double> max_gpu_hours);

}  // namespace scalestudy
