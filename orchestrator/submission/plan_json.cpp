#include "orchestrator/submission/plan_json.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/campaign/run_spec_json.hpp"
#include "orchestrator/study/run_spec_names.hpp"

namespace scalestudy::submission {
namespace {

nlohmann::json allocations_json(const Study& study,
                                const std::vector<sched::PackedAllocationPlan>& allocations) {
  nlohmann::json out = nlohmann::json::array();
  for (const sched::PackedAllocationPlan& allocation : allocations) {
    nlohmann::json runs = nlohmann::json::array();
    for (size_t index : allocation.runs) runs.push_back(study.runs[index].run_id);
    out.push_back({{"nodes", allocation.nodes},
                   {"time_minutes", allocation.time_minutes},
                   {"estimated_s", allocation.estimated_s},
                   {"runs", std::move(runs)}});
  }
  return out;
}

nlohmann::json totals_json(const PlanTotals& totals) {
  nlohmann::json out = {{"runs", totals.requested.runs},
                        {"node_hours_requested", totals.requested.node_hours},
                        {"gpu_hours_requested", totals.requested.gpu_hours},
                        {"runs_without_time_limit", totals.requested.runs_without_time_limit},
                        {"estimate", nullptr}};
  if (totals.allocations) out["packed_allocations"] = totals.allocations->size();
  if (totals.estimate.runs_estimated > 0) {
    out["estimate"] = {{"runs_estimated", totals.estimate.runs_estimated},
                       {"measured_runs_used", totals.estimate.measured_runs_used},
                       {"node_hours", totals.estimate.node_hours},
                       {"gpu_hours", totals.estimate.gpu_hours}};
  }
  return out;
}

// Writes `value.dump(2)` as it reads nested `indent` spaces deep in a larger document: JSON
// text holds no raw newline inside a string, so each newline begins a nested line.
void put_nested(std::FILE* stream, const nlohmann::json& value, size_t indent) {
  const std::string text = value.dump(2);
  const std::string margin(indent, ' ');
  size_t line_start = 0;
  for (size_t newline = text.find('\n'); newline != std::string::npos;
       newline = text.find('\n', line_start)) {
    std::fwrite(text.data() + line_start, 1, newline + 1 - line_start, stream);
    std::fputs(margin.c_str(), stream);
    line_start = newline + 1;
  }
  std::fwrite(text.data() + line_start, 1, text.size() - line_start, stream);
}

// The "runs" array, one run converted and written at a time.
void put_runs(std::FILE* stream, const std::vector<RunSpec>& runs) {
  if (runs.empty()) {
    std::fputs("[]", stream);
    return;
  }
  std::fputs("[\n", stream);
  for (size_t index = 0; index < runs.size(); ++index) {
    std::fputs(index == 0 ? "    " : ",\n    ", stream);
    put_nested(stream, campaign::run_spec_to_json(runs[index]), 4);
  }
  std::fputs("\n  ]", stream);
}

}  // namespace

void write_plan_json(std::FILE* stream, const Study& study, const PlanTotals& totals) {
  nlohmann::json out = {
      {"study", study.name},
      {"kind", study_kind_name(study.kind)},
      {"description", study.description},
      {"source_path", study.source_path},
      {"baseline", study.baseline},
      {"max_attempts", study.max_attempts},
      {"array_throttle", study.array_throttle},
      {"systems", study.systems},
      {"varied_keys", study.varied_keys},
      {"runs", nullptr},  // a place in the key order; written by put_runs
      {"totals", totals_json(totals)},
  };
  if (totals.allocations) out["packed"] = allocations_json(study, *totals.allocations);
  nlohmann::json report = nlohmann::json::object();
  if (study.report.target_gain_pct) report["target_gain_pct"] = *study.report.target_gain_pct;
  if (!study.report.thresholds.empty()) report["thresholds"] = study.report.thresholds;
  if (!study.report.throughput_unit.empty()) {
    report["throughput_unit"] = study.report.throughput_unit;
  }
  out["report"] = std::move(report);
  if (study.budget_gpu_hours) out["budget_gpu_hours"] = *study.budget_gpu_hours;
  for (auto field = out.begin(); field != out.end(); ++field) {
    std::fputs(field == out.begin() ? "{\n  " : ",\n  ", stream);
    std::fputs((nlohmann::json(field.key()).dump() + ": ").c_str(), stream);
    if (field.key() == "runs") {
      put_runs(stream, study.runs);
    } else {
      put_nested(stream, field.value(), 2);
    }
  }
  std::fputs("\n}\n", stream);
}

}  // namespace scalestudy::submission
