// What `scalestudy plan` computes of a study before anything is submitted: each run's row
// (its id, repeat, geometry and the keys that vary) and the sweep's totals, requested (time
// limit × nodes × GPUs; a packed sweep's allocations) and, where earlier measured runs of
// the same configuration exist under the results dir, estimated; the budget's verdict and
// the interference risks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/analysis/cost_estimate.hpp"
#include "orchestrator/sched/packing_plan.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::submission {

// A header row, then a row per run. `header_labels`: the table's words ("run id", "gpus"
// or "ranks", ...); otherwise the CSV's column names ("run_id", "world_size", ...).
std::vector<std::vector<std::string>> plan_table_rows(const Study& study, bool header_labels);

struct PlanTotals {
  RequestedCost requested;
  results::CostEstimate estimate;
  std::optional<std::vector<sched::PackedAllocationPlan>> allocations;  // packed only
  std::string packing_text;           // packed only: packed_plan's describe_allocations
  Status budget;                      // the requested cost against the study's budget.gpu_hours
  std::vector<std::string> warnings;  // interference risks, where the runs will run unknown
};

Result<PlanTotals> plan_totals(const Study& study, const std::string& results_dir, bool packed);

}  // namespace scalestudy::submission
