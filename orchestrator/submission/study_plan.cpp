#include "orchestrator/submission/study_plan.hpp"

#include <algorithm>
#include <thread>

#include "orchestrator/study/interference_risk.hpp"
#include "orchestrator/submission/packed_plan.hpp"

namespace scalestudy::submission {
namespace {

bool any_gpu_run(const Study& study) {
  for (const auto& run : study.runs) {
    if (run.slurm.gpus_per_node > 0) return true;
  }
  return false;
}

// Varied keys other than the ones the fixed columns already show; `system` first whenever
// the study names systems, even one.
std::vector<std::string> extra_columns(const Study& study) {
  std::vector<std::string> keys;
  if (!study.systems.empty() && std::find(study.varied_keys.begin(), study.varied_keys.end(),
                                          "system") == study.varied_keys.end()) {
    keys.push_back("system");
  }
  for (const auto& key : study.varied_keys) {
    bool shown =
        key == "world_size" || key == "nodes" || key == "global_batch" || key == "per_gpu_batch";
    if (!shown) keys.push_back(key);
  }
  return keys;
}

}  // namespace

std::vector<std::vector<std::string>> plan_table_rows(const Study& study, bool header_labels) {
  std::vector<std::string> keys = extra_columns(study);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(study.runs.size() + 1);
  std::vector<std::string> header;
  if (header_labels) {
    header = {"run id",   "rep",          "nodes",        any_gpu_run(study) ? "gpus" : "ranks",
              "per node", "global batch", "per-gpu batch"};
  } else {
    header = {"run_id",         "repeat",       "nodes",        "world_size",
              "tasks_per_node", "global_batch", "per_gpu_batch"};
  }
  header.insert(header.end(), keys.begin(), keys.end());
  rows.push_back(std::move(header));
  for (const auto& run : study.runs) {
    std::vector<std::string> row = {run.run_id,
                                    std::to_string(run.repeat),
                                    std::to_string(run.nodes),
                                    std::to_string(run.world_size),
                                    std::to_string(run.tasks_per_node),
                                    std::to_string(run.global_batch),
                                    std::to_string(run.per_gpu_batch)};
    for (const auto& key : keys) {
      row.push_back(key == "system" ? run.system.label() : run.varied.at(key));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<PlanTotals> plan_totals(const Study& study, const std::string& results_dir, bool packed) {
  const auto measured = results::load_measured_run_times(results_dir);
  PlanTotals totals{requested_cost(study.runs), results::estimate_cost(study.runs, measured),
                    std::nullopt, ""};
  if (packed) {
    const PackingInputs inputs = packing_inputs(study, measured);
    auto allocations = plan_study_allocations(study, inputs);
    if (!allocations) return allocations.status();
    totals.requested = sched::requested_packed_cost(*allocations);
    totals.packing_text = describe_allocations(study, inputs, *allocations);
    totals.allocations = std::move(*allocations);
  }
  totals.budget = check_budget(totals.requested, study.budget_gpu_hours, std::nullopt);
  totals.warnings = interference_risks(
      study, {RunPlacement::kUnknown, 1, static_cast<int>(std::thread::hardware_concurrency())});
  return totals;
}

}  // namespace scalestudy::submission
