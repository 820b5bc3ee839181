#include "orchestrator/results/analysis/cost_estimate.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/core/sqlite.hpp"
#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/workload_params.hpp"

namespace scalestudy::results {
namespace {

// Rank 0's epochs of each ingested run, with the run's plan.
constexpr const char* kMeasuredRunsSql =
    "SELECT r.spec_json, r.nodes, r.world_size, r.gpus_per_node, SUM(e.epoch_s) "
    "FROM runs r JOIN m_epochs e ON e.run_id = r.run_id AND e.rank = 0 "
    "WHERE r.profiled = 0 GROUP BY r.run_id";

// The key of parameters already without `seed`, as JSON text.
std::string key_of(const std::string& workload, const std::string& params_json, int nodes,
                   int world_size, int gpus_per_node, const std::string& system_hash) {
  std::string key = workload + " " + params_json + " nodes=" + std::to_string(nodes) +
                    " ranks=" + std::to_string(world_size) +
                    " gpus_per_node=" + std::to_string(gpus_per_node);
  return system_hash.empty() ? key : key + " system=" + system_hash;
}

// The hash of the named system in a run's spec_json; empty without one.
std::string named_system_hash(const nlohmann::json& spec) {
  if (!spec.contains("system") || !spec["system"].is_object()) return "";
  const nlohmann::json& system = spec["system"];
  return system.value("named", false) ? system.value("hash", "") : "";
}

}  // namespace

std::string configuration_key(const std::string& workload, std::string params_json, int nodes,
                              int world_size, int gpus_per_node, const std::string& system_hash) {
  auto params = nlohmann::json::parse(params_json, nullptr, false);
  if (params.is_object()) {
    params.erase("seed");
    params_json = params.dump();
  }
  return key_of(workload, params_json, nodes, world_size, gpus_per_node, system_hash);
}

// The same key as from the run's parameters as JSON text, without a JSON round trip.
std::string configuration_key(const RunSpec& run) {
  auto params = workload_params(run);
  params.erase("seed");
  return key_of(run.workload, nlohmann::json(params).dump(), run.nodes, run.world_size,
                run.slurm.gpus_per_node, run.system.named ? run.system.hash : "");
}

std::vector<MeasuredRunTime> load_measured_run_times(const std::string& results_dir) {
  std::vector<MeasuredRunTime> measured;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(results_dir, error)) {
    if (entry.path().extension() != ".sqlite") continue;
    auto db = sqlite::Database::open(entry.path().string(), sqlite::OpenMode::kReadOnly);
    if (!db) continue;
    auto rows = db->query(kMeasuredRunsSql);
    if (!rows) continue;  // not a study database, or nothing ingested yet
    for (const auto& row : *rows) {
      auto spec = nlohmann::json::parse(sqlite::to_string(row[0]), nullptr, false);
      if (!spec.is_object() || !spec.contains("params")) continue;
      const auto as_int = [](const sqlite::Value& value) {
        return static_cast<int>(std::get<int64_t>(value));
      };
      const double seconds = std::holds_alternative<double>(row[4])
                                 ? std::get<double>(row[4])
                                 : static_cast<double>(std::get<int64_t>(row[4]));
      measured.push_back({configuration_key(spec.value("workload", std::string()),
                                            spec["params"].dump(), as_int(row[1]), as_int(row[2]),
                                            as_int(row[3]), named_system_hash(spec)),
                          seconds});
    }
  }
  return measured;
}

namespace {

// Each planned run's configuration key and its earlier measured times (null: none).
struct MatchedRun {
  std::string key;
  const std::vector<double>* seconds = nullptr;
};

std::vector<MatchedRun> match_runs(const std::vector<RunSpec>& runs,
                                   const std::map<std::string, std::vector<double>>& by_key) {
  std::vector<MatchedRun> matched(runs.size());
  if (by_key.empty()) return matched;  // nothing to match: skip the keys of the runs
  for (size_t index = 0; index < runs.size(); ++index) {
    matched[index].key = configuration_key(runs[index]);
    auto found = by_key.find(matched[index].key);
    if (found != by_key.end()) matched[index].seconds = &found->second;
  }
  return matched;
}

std::map<std::string, std::vector<double>> times_by_key(
    const std::vector<MeasuredRunTime>& measured) {
  std::map<std::string, std::vector<double>> by_key;
  for (const auto& run : measured) by_key[run.configuration_key].push_back(run.seconds);
  return by_key;
}

}  // namespace

std::map<std::string, double> measured_run_seconds(const std::vector<RunSpec>& runs,
                                                   const std::vector<MeasuredRunTime>& measured) {
  const auto by_key = times_by_key(measured);
  const std::vector<MatchedRun> matched = match_runs(runs, by_key);
  std::map<std::string, double> seconds;
  for (size_t index = 0; index < runs.size(); ++index) {
    if (matched[index].seconds) seconds[runs[index].run_id] = median(*matched[index].seconds);
  }
  return seconds;
}

CostEstimate estimate_cost(const std::vector<RunSpec>& runs,
                           const std::vector<MeasuredRunTime>& measured) {
  CostEstimate estimate;
  estimate.runs_planned = static_cast<int>(runs.size());
  const auto by_key = times_by_key(measured);
  const std::vector<MatchedRun> matched = match_runs(runs, by_key);
  std::set<std::string> used;
  for (size_t index = 0; index < runs.size(); ++index) {
    const MatchedRun& match = matched[index];
    if (match.seconds == nullptr) continue;
    ++estimate.runs_estimated;
    if (used.insert(match.key).second) {
      estimate.measured_runs_used += static_cast<int>(match.seconds->size());
    }
    const double node_hours = median(*match.seconds) / 3600 * runs[index].nodes;
    estimate.node_hours += node_hours;
    estimate.gpu_hours += node_hours * runs[index].slurm.gpus_per_node;
  }
  return estimate;
}

std::string describe_estimate(const CostEstimate& estimate) {
  if (estimate.runs_estimated == 0) {
    return "no estimate: no earlier measured run of the same configuration";
  }
  return "estimate from " + std::to_string(estimate.measured_runs_used) +
         " earlier measured runs: " + std::to_string(estimate.runs_estimated) + " of " +
         std::to_string(estimate.runs_planned) + " runs, " + format_hours(estimate.gpu_hours) +
         " GPU-hours, " + format_hours(estimate.node_hours) + " node-hours";
}

}  // namespace scalestudy::results
