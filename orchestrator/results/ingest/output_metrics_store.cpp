#include "orchestrator/results/ingest/output_metrics_store.hpp"

#include <nlohmann/json.hpp>

namespace scalestudy::results {

Status delete_output_metrics(PreparedQueries& study_queries, const std::string& run_id) {
  for (const char* table : {"m_output_metrics", "m_output_metric_ranks"}) {
    if (Status status =
            study_queries.run(std::string("DELETE FROM ") + table + " WHERE run_id = ?", {run_id});
        !status) {
      return status;
    }
  }
  return Status::ok();
}

Status store_output_metrics(PreparedQueries& study_queries, const std::string& run_id,
                            const std::vector<OutputMetric>& metrics) {
  for (const OutputMetric& metric : metrics) {
    const MetricSpec& spec = metric.spec;
    if (Status status = study_queries.run(
            "INSERT INTO m_output_metrics (run_id, name, unit, role, reduction, value) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            {run_id, spec.name, spec.unit, std::string(metric_role_name(spec.role)),
             std::string(metric_reduction_name(spec.reduction)), metric.value});
        !status) {
      return status;
    }
    for (const RankMetricValue& rank : metric.ranks) {
      if (Status status = study_queries.run(
              "INSERT INTO m_output_metric_ranks (run_id, name, rank, value, matches) "
              "VALUES (?, ?, ?, ?, ?)",
              {run_id, spec.name, int64_t{rank.rank}, rank.value, int64_t{rank.matches}});
          !status) {
        return status;
      }
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
