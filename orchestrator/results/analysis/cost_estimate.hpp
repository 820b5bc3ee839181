// What a planned sweep would really cost, estimated from earlier measured runs: for each
// planned run, the study databases under the results dir are searched for ingested runs of
// the same workload configuration (binary, parameters apart from `seed`, nodes, ranks,
// GPUs per node); the median of their measured run time (the sum of their epochs) × nodes
// × GPUs per node is the run's estimate. Runs with no such earlier run stay unestimated.
// Functions over files; thread-safe (each call opens its own read-only connections).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::results {

// One earlier measured run: its configuration key and measured seconds.
struct MeasuredRunTime {
  std::string configuration_key;
  double seconds = 0;
};

struct CostEstimate {
  int runs_planned = 0;
  int runs_estimated = 0;                // planned runs with at least one earlier measured run
  int measured_runs_used = 0;            // earlier runs that matched some planned run
  double node_hours = 0, gpu_hours = 0;  // over the estimated runs
};

// workload + parameters without `seed` + nodes + world size + GPUs per node, as text, and
// the hash of the named system the run is planned on (`system_hash`; empty without one),
// so one system's runs are never estimated from another's.
std::string configuration_key(const std::string& workload, std::string params_json, int nodes,
                              int world_size, int gpus_per_node,
                              const std::string& system_hash = "");
std::string configuration_key(const RunSpec& run);

// Every ingested run of every study database (*.sqlite) directly under `results_dir`;
// files that are not study databases are skipped.
std::vector<MeasuredRunTime> load_measured_run_times(const std::string& results_dir);

// Run id -> the median measured seconds of the earlier runs of its configuration, for the
// runs that have any: what estimate_cost and the sizing of packed allocations start from.
std::map<std::string, double> measured_run_seconds(const std::vector<RunSpec>& runs,
                                                   const std::vector<MeasuredRunTime>& measured);

CostEstimate estimate_cost(const std::vector<RunSpec>& runs,
                           const std::vector<MeasuredRunTime>& measured);

// "estimate from earlier measured runs: 12 of 15 runs, 3.20 GPU-hours, 0.80 node-hours"
std::string describe_estimate(const CostEstimate& estimate);

}  // namespace scalestudy::results
