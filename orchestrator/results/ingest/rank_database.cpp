#include "orchestrator/results/ingest/rank_database.hpp"

#include "harness/core/run_schema.hpp"
#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/results/ingest/sqlite_number.hpp"

namespace scalestudy::results {
namespace {

// The phases in the order of the steps table's columns 4.. (after warmup, samples).
constexpr const char* kPhaseNames[] = {"data",         "forward",   "backward",
                                       "comm_exposed", "optimizer", "step"};
constexpr int kFirstPhaseColumn = 4;
constexpr int kWarmupColumn = 2;

std::vector<PhaseAggregate> aggregate_phases(const Rows& steps) {
  bool any_measured = false;
  for (const auto& step : steps) any_measured |= as_double(step[kWarmupColumn]) == 0;
  std::vector<PhaseAggregate> phases;
  for (size_t p = 0; p < std::size(kPhaseNames); ++p) {
    std::vector<double> values;
    for (const auto& step : steps) {
      if (any_measured && as_double(step[kWarmupColumn]) != 0) continue;
      values.push_back(as_double(step[kFirstPhaseColumn + p]));
    }
    if (values.empty()) continue;
    Summary summary = summarize(values);
    phases.push_back({kPhaseNames[p], summary.count, summary.median, summary.mean, summary.min,
                      summary.max, summary.mean * summary.count});
  }
  return phases;
}

// The summary's value of `name`, or `fallback`.
double summary_value(const Rows& summary, const std::string& name, double fallback) {
  for (const auto& row : summary) {
    if (sqlite::to_string(row[0]) == name) return as_double(row[1]);
  }
  return fallback;
}

// Whether the file has `table`: those added within version 1 are absent from older files.
Result<bool> has_table(sqlite::Database& db, const char* table) {
  auto tables = db.query_value(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", {std::string(table)});
  if (!tables) return tables.status();
  return *tables && as_double(**tables) > 0;
}

Result<Rows> read_arrivals(sqlite::Database& db, const Rows& summary) {
  auto exists = has_table(db, kArrivalsTable);
  if (!exists) return exists.status();
  if (!*exists) return Rows{};
  const double offset_s = summary_value(summary, "clock_offset_s", 0);
  return db.query("SELECT global_step, arrival_unix_s + ? FROM arrivals ORDER BY global_step",
                  {offset_s});
}

}  // namespace

const std::vector<CopiedTable>& copied_tables() {
  static const std::vector<CopiedTable> kTables = {
      run_schema::kRun,    run_schema::kProvenance, run_schema::kSummary,
      run_schema::kEpochs, run_schema::kTelemetry,  run_schema::kCollectives,
  };
  return kTables;
}

Result<RankData> read_rank_database(const std::string& path) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  if (!db) return db.status();
  auto check = db->query_value("PRAGMA quick_check");
  if (!check) return check.status();
  if (!*check || sqlite::to_string(**check) != "ok") {
    return Status::error(path + ": integrity check failed: " +
                         (*check ? sqlite::to_string(**check) : std::string("no answer")));
  }
  auto version = db->query_value("PRAGMA user_version");
  if (!version) return version.status();
  const int64_t found_version = *version ? std::get<int64_t>(**version) : 0;
  if (found_version != run_schema::kVersion) {
    return Status::error(path + ": run database schema version " + std::to_string(found_version) +
                         " is not supported (this scalestudy reads version " +
                         std::to_string(run_schema::kVersion) + ")");
  }

  RankData data;
  for (const CopiedTable& table : copied_tables()) {
    auto rows = db->query(std::string("SELECT ") + table.columns + " FROM " + table.name);
    if (!rows) return rows.status().with_context("table " + std::string(table.name));
    data.tables[table.name] = std::move(*rows);
  }
  const Rows& run_rows = data.tables["run"];
  if (run_rows.size() != 1) {
    return Status::error(path + ": table run has " + std::to_string(run_rows.size()) +
                         " rows, expected exactly 1");
  }
  auto identity = db->query("SELECT run_id, rank, world_size, status, failure_reason FROM run");
  if (!identity) return identity.status().with_context("table run");
  const auto& run = identity->front();
  data.run_id = sqlite::to_string(run[0]);
  data.rank = static_cast<int>(as_double(run[1]));
  data.world_size = static_cast<int>(as_double(run[2]));
  data.status = sqlite::to_string(run[3]);
  data.failure_reason = sqlite::to_string(run[4]);

  auto steps = db->query(std::string("SELECT ") + run_schema::kSteps.columns +
                         " FROM steps ORDER BY global_step");
  if (!steps) return steps.status().with_context("table steps");
  data.phases = aggregate_phases(*steps);
  data.tables[kStepsTable] = std::move(*steps);
  auto arrivals = read_arrivals(*db, data.tables[run_schema::kSummary.name]);
  if (!arrivals) return arrivals.status().with_context("table arrivals");
  data.tables[kArrivalsTable] = std::move(*arrivals);
  auto has_energy = has_table(*db, kEnergyTable);
  if (!has_energy) return has_energy.status();
  if (*has_energy) {
    auto energy = db->query(std::string("SELECT ") + run_schema::kEnergy.columns +
                            " FROM energy ORDER BY epoch");
    if (!energy) return energy.status().with_context("table energy");
    data.tables[kEnergyTable] = std::move(*energy);
  } else {
    data.tables[kEnergyTable] = Rows{};
  }
  return data;
}

}  // namespace scalestudy::results
