// The study database's output-metric tables (m_output_metrics: one row per run and metric,
// reduced over ranks; m_output_metric_ranks: each rank's value and match count; see
// docs/study-database.md): written by ingest inside its transaction (through its
// PreparedQueries over the study database), and the metrics a run's spec_json declares.
// Functions used by one thread.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/ingest/output_metrics.hpp"
#include "orchestrator/results/query/prepared_queries.hpp"

namespace scalestudy::results {

Status delete_output_metrics(PreparedQueries& study_queries, const std::string& run_id);
Status store_output_metrics(PreparedQueries& study_queries, const std::string& run_id,
                            const std::vector<OutputMetric>& metrics);

// The `metrics` of a runs.spec_json text (none when the key is absent).
Result<std::vector<MetricSpec>> metrics_of_spec_json(const std::string& spec_json);

}  // namespace scalestudy::results
