#include "orchestrator/results/output_metrics_store.hpp"

#include <nlohmann/json.hpp>

namespace scalestudy::results {

Status delete_output_metrics(sqlite::Database& study_db, const std::string& run_id) {
  for (const char* table : {"m_output_metrics", "m_output_metric_ranks"}) {
    auto statement = study_db.prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?");
    if (!statement) return statement.status();
    statement->bind(1, run_id);
    if (Status status = statement->run(); !status) return status;
  }
  return Status::ok();
}

Status store_output_metrics(sqlite::Database& study_db, const std::string& run_id,
                            const std::vector<OutputMetric>& metrics) {
  auto run_row = study_db.prepare(
      "INSERT INTO m_output_metrics (run_id, name, unit, role, reduction, value) "
      "VALUES (?, ?, ?, ?, ?, ?)");
  if (!run_row) return run_row.status();
  auto rank_row = study_db.prepare(
      "INSERT INTO m_output_metric_ranks (run_id, name, rank, value, matches) "
      "VALUES (?, ?, ?, ?, ?)");
  if (!rank_row) return rank_row.status();
  for (const OutputMetric& metric : metrics) {
    const MetricSpec& spec = metric.spec;
    run_row->bind(1, run_id).bind(2, spec.name).bind(3, spec.unit);
    run_row->bind(4, metric_role_name(spec.role)).bind(5, metric_reduction_name(spec.reduction));
    run_row->bind(6, metric.value);
    if (Status status = run_row->run(); !status) return status;
    for (const RankMetricValue& rank : metric.ranks) {
      rank_row->bind(1, run_id).bind(2, spec.name).bind(3, rank.rank).bind(4, rank.value);
      rank_row->bind(5, rank.matches);
      if (Status status = rank_row->run(); !status) return status;
    }
  }
  return Status::ok();
}

Result<std::vector<MetricSpec>> metrics_of_spec_json(const std::string& spec_json) {
  auto json = nlohmann::json::parse(spec_json, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return Status::error("is not a JSON object");
  auto metrics = json.find("metrics");
  if (metrics == json.end()) return std::vector<MetricSpec>();
  return metric_specs_from_json(*metrics);
}

}  // namespace scalestudy::results
