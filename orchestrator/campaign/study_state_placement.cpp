#include "orchestrator/campaign/study_state_placement.hpp"

namespace scalestudy::campaign {
namespace {

sqlite::Value text_or_null(const std::string& text) {
  return text.empty() ? sqlite::Value() : sqlite::Value(text);
}

}  // namespace

Status record_placement(sqlite::Database& db, const std::string& run_id, const std::string& job_id,
                        const common::JobPlacement& placement) {
  if (placement.empty() && placement.job_step.empty()) return Status::ok();
  auto stored = db.query(
      "INSERT INTO placements(run_id, attempt, job_id, job_step, node_list, queued_at, "
      "started_at, ended_at) SELECT run_id, attempts, ?, ?, ?, ?, ?, ? FROM runs WHERE run_id = ? "
      "ON CONFLICT(run_id, attempt) DO UPDATE SET job_id = excluded.job_id, "
      "job_step = COALESCE(excluded.job_step, job_step), "
      "node_list = COALESCE(excluded.node_list, node_list), "
      "queued_at = COALESCE(excluded.queued_at, queued_at), "
      "started_at = COALESCE(excluded.started_at, started_at), "
      "ended_at = COALESCE(excluded.ended_at, ended_at)",
      {job_id, text_or_null(placement.job_step), text_or_null(placement.node_list),
       text_or_null(placement.queued_at), text_or_null(placement.started_at),
       text_or_null(placement.ended_at), run_id});
  return stored.status().with_context("recording where run " + run_id + " ran");
}

Result<std::vector<PlacementRecord>> read_placements(sqlite::Database& db) {
  auto rows = db.query(
      "SELECT p.run_id, p.attempt, p.job_id, p.job_step, p.node_list, p.queued_at, p.started_at, "
      "p.ended_at FROM placements p JOIN runs r ON r.run_id = p.run_id WHERE r.planned = 1 "
      "ORDER BY p.run_id, p.attempt");
  if (!rows) return rows.status();
  std::vector<PlacementRecord> records;
  for (const auto& row : *rows) {
    PlacementRecord record;
    record.run_id = sqlite::to_string(row[0]);
    record.attempt = static_cast<int>(std::get<int64_t>(row[1]));
    record.job_id = sqlite::to_string(row[2]);
    record.placement = {sqlite::to_string(row[3]), sqlite::to_string(row[4]),
                        sqlite::to_string(row[5]), sqlite::to_string(row[6]),
                        sqlite::to_string(row[7])};
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace scalestudy::campaign
