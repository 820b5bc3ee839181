#include "orchestrator/results/ingest/measurement_schema.hpp"

// The tables: python/scalestudy/schema/measurements.sql, embedded at build time.
#include "scalestudy_schema/measurements_sql.hpp"

namespace scalestudy::results {
Status ensure_measurement_schema(sqlite::Database& study_db) {
  return study_db.exec(schema::kMeasurementSql).with_context("creating the measurement tables");
}

Result<bool> has_study_tables(sqlite::Database& study_db) {
  auto count = study_db.query_value(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('study', 'runs')");
  if (!count) return count.status();
  return *count && std::get<int64_t>(**count) == 2;
}

Result<std::string> current_runs_condition(sqlite::Database& study_db) {
  auto planned =
      study_db.query_value("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'planned'");
  if (!planned) return planned.status();
  return std::string(*planned && std::get<int64_t>(**planned) > 0 ? "planned = 1" : "1");
}

}  // namespace scalestudy::results
