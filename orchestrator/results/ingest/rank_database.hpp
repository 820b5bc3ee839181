// Reads one per-rank run database (docs/run-database.md) read-only into memory: the rows
// ingest copies into the study database, and the per-phase step aggregates it derives.
// Validates integrity (PRAGMA quick_check) and the schema version first, so a truncated
// or corrupt file is an error value, never a partial read. Value types; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/run_schema.hpp"
#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

using Rows = std::vector<std::vector<sqlite::Value>>;

// A run-database table copied into the study database as `m_<name>` with (run_id, rank)
// in front of `columns` (which are the same names in both; `run`'s own run_id and rank
// columns become that key).
using CopiedTable = run_schema::Table;
const std::vector<CopiedTable>& copied_tables();  // run, provenance, summary, epochs, ...
inline constexpr const char* kStepsTable = run_schema::kSteps.name;  // copied only on request
// `arrivals` as (global_step, arrival_unix_s) on rank 0's clock (the rank's summary
// clock_offset_s applied); no rows from a file written before the table existed.
inline constexpr const char* kArrivalsTable = run_schema::kArrivals.name;
// `energy` as written; no rows from a file written before the table existed.
inline constexpr const char* kEnergyTable = run_schema::kEnergy.name;

// Median/mean/extremes of one phase over the non-warm-up steps (all steps when a run
// had only warm-up steps).
struct PhaseAggregate {
  std::string phase;  // data, forward, backward, comm_exposed, optimizer, step
  int steps = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, total_ms = 0;
};

struct RankData {
  std::string run_id;  // from the `run` row
  int rank = 0;
  int world_size = 0;
  std::string status;  // running | completed | failed
  std::string failure_reason;
  // By CopiedTable::name, plus kStepsTable, kArrivalsTable, kEnergyTable.
  std::map<std::string, Rows> tables;
  std::vector<PhaseAggregate> phases;
};

// Reads `path`. Errors name the file: "rank1.sqlite: file is not a database".
Result<RankData> read_rank_database(const std::string& path);

}  // namespace scalestudy::results
