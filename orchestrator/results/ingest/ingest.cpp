#include "orchestrator/results/ingest/ingest.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "harness/core/run_layout.hpp"
#include "orchestrator/common/job_state.hpp"
#include "orchestrator/common/results_path.hpp"
#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/results/ingest/measurement_schema.hpp"
#include "orchestrator/results/ingest/output_metrics.hpp"
#include "orchestrator/results/ingest/output_metrics_store.hpp"
#include "orchestrator/results/ingest/rank_database.hpp"
#include "orchestrator/results/ingest/system_facts.hpp"
#include "orchestrator/results/query/prepared_queries.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

// A run whose job has not finished (planned, being submitted, pending, running): its rank
// files may still be written.
bool unfinished(const std::string& run_state) {
  const auto job_state = common::parse_job_state(run_state);
  return !job_state || !common::is_terminal(*job_state);
}

struct PlannedRun {
  std::string run_id;
  std::string state;
  int world_size = 0;
  fs::path out_dir;
  std::vector<MetricSpec> metrics;  // the study's `metrics:`: read from the ranks' output
  std::string metrics_json;         // their text, part of the fingerprint
  // Their patterns, compiled once per distinct text and shared by the runs that have it;
  // null without metrics.
  std::shared_ptr<const Result<MetricPatterns>> patterns;
};

// Either the ranks' data, or why the run cannot be ingested.
struct RunReading {
  std::vector<RankData> ranks;
  std::vector<OutputMetric> output_metrics;
  std::optional<std::string> failure;
  bool files_missing = false;  // the failure is rank files (or the whole folder) gone
};

constexpr char kGoneKept[] = "run directory gone, measurements kept";

// Ends the fingerprint of a run whose step rows were stored (IngestOptions::store_steps).
constexpr const char* kWithStepsMark = "steps;";

// "name:size:mtime;" of one file of the fingerprint.
std::string stamp(const fs::path& path, uintmax_t size) {
  std::error_code error;
  const auto mtime = fs::last_write_time(path, error).time_since_epoch().count();
  return path.filename().string() + ":" + std::to_string(size) + ":" + std::to_string(mtime) + ";";
}

// Sizes and modification times of the rank files and their non-empty WAL files: a
// rewritten run changes it, an untouched one keeps it. Empty WAL files are left out
// because a read-only reader (ingest itself) creates and touches them. A run with output
// metrics adds the metrics and its ranks' output files.
std::string fingerprint(const PlannedRun& run) {
  std::string text;
  for (int rank = 0; rank < run.world_size; ++rank) {
    for (const std::string suffix : {"", "-wal"}) {
      const fs::path path = run.out_dir / (run_layout::rank_database_name(rank) + suffix);
      std::error_code error;
      const auto size = fs::file_size(path, error);
      if (error || (size == 0 && !suffix.empty())) {
        text += suffix.empty() ? "missing;" : "";
        continue;
      }
      text += stamp(path, size);
    }
  }
  if (run.metrics.empty()) return text;
  text += run.metrics_json + ";";
  for (int rank = 0; rank < run.world_size; ++rank) {
    const fs::path path = run_layout::rank_log_path(run.out_dir.string(), rank);
    std::error_code error;
    const auto size = fs::file_size(path, error);
    if (!error) text += stamp(path, size);
  }
  return text;
}

// A run of a study with `metrics:` whose program wrote no run database at all: measured
// by its output alone.
bool measured_by_output_only(const PlannedRun& run) {
  if (run.metrics.empty()) return false;
  for (int rank = 0; rank < run.world_size; ++rank) {
    if (fs::exists(run.out_dir / run_layout::rank_database_name(rank))) return false;
  }
  return true;
}

void read_output_metrics(const PlannedRun& run, RunReading& reading) {
  if (run.metrics.empty() || reading.failure) return;
  if (!*run.patterns) {
    reading.failure = run.patterns->status().message();
    return;
  }
  auto extracted = extract_output_metrics(run.out_dir.string(), run.world_size, **run.patterns);
  if (!extracted) {
    reading.failure = extracted.status().message();
    return;
  }
  reading.output_metrics = std::move(*extracted);
}

RunReading read_run(const PlannedRun& run) {
  RunReading reading;
  if (measured_by_output_only(run)) {
    read_output_metrics(run, reading);
    return reading;
  }
  std::vector<int> missing;
  for (int rank = 0; rank < run.world_size; ++rank) {
    if (!fs::exists(run.out_dir / run_layout::rank_database_name(rank))) missing.push_back(rank);
  }
  if (!missing.empty()) {
    std::string names, ranks;
    for (int rank : missing) {
      names += (names.empty() ? "" : ", ") + run_layout::rank_database_name(rank);
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
    }
    reading.failure = "missing run database" + std::string(missing.size() > 1 ? "s " : " ") +
                      names + " (rank" + (missing.size() > 1 ? "s " : " ") + ranks + " of " +
                      std::to_string(run.world_size) + ") in " + run.out_dir.string();
    reading.files_missing = true;
    return reading;
  }
  for (int rank = 0; rank < run.world_size; ++rank) {
    const std::string name = run_layout::rank_database_name(rank);
    auto data = read_rank_database((run.out_dir / name).string());
    if (!data) {
      reading.failure = "corrupt run database " + name + ": " + data.status().message();
      return reading;
    }
    if (data->run_id != run.run_id || data->rank != rank || data->world_size != run.world_size) {
      reading.failure = name + " belongs to run " + data->run_id + " rank " +
                        std::to_string(data->rank) + " of " + std::to_string(data->world_size) +
                        ", expected run " + run.run_id + " rank " + std::to_string(rank) + " of " +
                        std::to_string(run.world_size);
      return reading;
    }
    if (data->status == "running") {
      // The job is over (active runs are not ingested), so the rank died without a word:
      // SIGKILL, OOM killer, node failure.
      reading.failure = "rank " + std::to_string(rank) +
                        " never finished (its record still says running: killed or crashed)";
      return reading;
    }
    if (data->status != "completed") {
      reading.failure = "rank " + std::to_string(rank) + " ended " + data->status +
                        (data->failure_reason.empty() ? "" : ": " + data->failure_reason);
      return reading;
    }
    reading.ranks.push_back(std::move(*data));
  }
  read_output_metrics(run, reading);
  return reading;
}

Status delete_measurements(PreparedQueries& queries, const std::string& run_id) {
  std::vector<std::string> tables = {"m_phases", std::string("m_") + kStepsTable,
                                     std::string("m_") + kArrivalsTable,
                                     std::string("m_") + kEnergyTable};
  for (const CopiedTable& table : copied_tables()) tables.push_back(std::string("m_") + table.name);
  for (const auto& table : tables) {
    if (Status status = queries.run("DELETE FROM " + table + " WHERE run_id = ?", {run_id});
        !status) {
      return status;
    }
  }
  return delete_output_metrics(queries, run_id);
}

Status insert_rows(PreparedQueries& queries, const std::string& table, const std::string& columns,
                   const std::string& run_id, int rank, const Rows& rows) {
  if (rows.empty()) return Status::ok();
  std::string placeholders = "?, ?, ?";
  for (char c : columns) placeholders += c == ',' ? ", ?" : "";
  auto statement = queries.statement("INSERT INTO " + table + " (run_id, rank, " + columns +
                                     ") VALUES (" + placeholders + ")");
  if (!statement) return statement.status();
  for (const auto& row : rows) {
    (*statement)->bind(1, run_id).bind(2, rank);
    for (size_t i = 0; i < row.size(); ++i) (*statement)->bind(static_cast<int>(i + 3), row[i]);
    if (Status status = (*statement)->run(); !status) return status;
  }
  return Status::ok();
}

Status insert_rank(PreparedQueries& queries, const RankData& rank, bool store_steps) {
  for (const CopiedTable& table : copied_tables()) {
    if (Status status = insert_rows(queries, std::string("m_") + table.name, table.columns,
                                    rank.run_id, rank.rank, rank.tables.at(table.name));
        !status) {
      return status;
    }
  }
  if (store_steps) {
    if (Status status = insert_rows(queries, std::string("m_") + kStepsTable,
                                    "global_step, epoch, warmup, samples, data_ms, forward_ms, "
                                    "backward_ms, comm_exposed_ms, optimizer_ms, step_ms, loss",
                                    rank.run_id, rank.rank, rank.tables.at(kStepsTable));
        !status) {
      return status;
    }
  }
  if (Status status =
          insert_rows(queries, std::string("m_") + kArrivalsTable, run_schema::kArrivals.columns,
                      rank.run_id, rank.rank, rank.tables.at(kArrivalsTable));
      !status) {
    return status;
  }
  if (Status status =
          insert_rows(queries, std::string("m_") + kEnergyTable, run_schema::kEnergy.columns,
                      rank.run_id, rank.rank, rank.tables.at(kEnergyTable));
      !status) {
    return status;
  }
  Rows phase_rows;
  for (const PhaseAggregate& phase : rank.phases) {
    phase_rows.push_back({phase.phase, int64_t{phase.steps}, phase.median_ms, phase.mean_ms,
                          phase.min_ms, phase.max_ms, phase.total_ms});
  }
  return insert_rows(queries, "m_phases",
                     "phase, steps, median_ms, mean_ms, min_ms, max_ms, total_ms", rank.run_id,
                     rank.rank, phase_rows);
}

Status record_ingest(PreparedQueries& queries, const PlannedRun& run, const std::string& print,
                     const std::optional<std::string>& failure) {
  const sqlite::Value reason = failure ? sqlite::Value(*failure) : sqlite::Value();
  if (Status status = queries.run(
          "INSERT OR REPLACE INTO m_ingest (run_id, status, reason, ranks, fingerprint, "
          "ingested_at) VALUES (?, ?, ?, ?, ?, ?)",
          {run.run_id, std::string(failure ? "failed" : "ingested"), reason,
           int64_t{run.world_size}, print, common::utc_now_iso8601()});
      !status) {
    return status;
  }
  if (!failure) return Status::ok();
  return queries.run("UPDATE runs SET state = 'FAILED', reason = ? WHERE run_id = ?",
                     {*failure, run.run_id});
}

Result<std::vector<PlannedRun>> planned_runs(sqlite::Database& db, const fs::path& base_dir) {
  auto current = current_runs_condition(db);
  if (!current) return current.status();
  auto rows = db.query("SELECT run_id, state, world_size, out_dir, spec_json FROM runs WHERE " +
                       *current + " ORDER BY run_id");
  if (!rows) return rows.status();
  std::vector<PlannedRun> runs;
  std::map<std::string, std::shared_ptr<const Result<MetricPatterns>>> compiled;  // by text
  for (const auto& row : *rows) {
    PlannedRun run{sqlite::to_string(row[0]),
                   sqlite::to_string(row[1]),
                   static_cast<int>(std::get<int64_t>(row[2])),
                   fs::path(sqlite::to_string(row[3])),
                   {},
                   "",
                   nullptr};
    if (run.out_dir.is_relative()) run.out_dir = base_dir / run.out_dir;
    auto metrics = metrics_of_spec_json(sqlite::to_string(row[4]));
    if (!metrics) return metrics.status().with_context("run " + run.run_id + " spec_json");
    run.metrics = std::move(*metrics);
    if (!run.metrics.empty()) {
      run.metrics_json = metric_specs_to_json(run.metrics).dump();
      auto& patterns = compiled[run.metrics_json];
      if (!patterns) {
        patterns =
            std::make_shared<const Result<MetricPatterns>>(MetricPatterns::compile(run.metrics));
      }
      run.patterns = patterns;
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

Result<std::optional<std::string>> stored_fingerprint(PreparedQueries& queries,
                                                      const std::string& run_id) {
  auto value = queries.value("SELECT fingerprint FROM m_ingest WHERE run_id = ?", {run_id});
  if (!value) return value.status();
  if (!*value) return std::optional<std::string>();
  return std::optional<std::string>(sqlite::to_string(**value));
}

Result<bool> previously_ingested(PreparedQueries& queries, const std::string& run_id) {
  auto value = queries.value("SELECT status FROM m_ingest WHERE run_id = ?", {run_id});
  if (!value) return value.status();
  return *value && sqlite::to_string(**value) == "ingested";
}

// Measurements once ingested live in the study database; a purged run folder only
// changes the note beside them, never the run's state.
Status keep_measurements(PreparedQueries& queries, const PlannedRun& run,
                         const std::string& print) {
  return queries.run("UPDATE m_ingest SET reason = ?, fingerprint = ? WHERE run_id = ?",
                     {std::string(kGoneKept), print, run.run_id});
}

Status ingest_run(PreparedQueries& queries, const PlannedRun& run, const IngestOptions& options,
                  IngestOutcome& outcome) {
  const bool completed = common::parse_job_state(run.state) == common::JobState::kCompleted;
  // A run ingested with its step rows carries the mark: a plain ingest after keeps them, and
  // one with steps after a plain ingest reads the run again to add them.
  const std::string unmarked = fingerprint(run);
  const std::string print = options.store_steps ? unmarked + kWithStepsMark : unmarked;
  auto previous = stored_fingerprint(queries, run.run_id);
  if (!previous) return previous.status();
  if (*previous && (**previous == unmarked + kWithStepsMark || **previous == print)) {
    ++outcome.unchanged;
    return Status::ok();
  }
  RunReading reading = read_run(run);
  if (reading.files_missing) {
    auto ingested_before = previously_ingested(queries, run.run_id);
    if (!ingested_before) return ingested_before.status();
    if (*ingested_before) {
      outcome.kept.push_back(run.run_id + ": " + kGoneKept);
      return keep_measurements(queries, run, print);
    }
  }
  // A run the scheduler did not report completed is taken only when its run databases
  // prove it (output alone cannot).
  if (!completed && (reading.failure || measured_by_output_only(run))) return Status::ok();
  if (Status status = delete_measurements(queries, run.run_id); !status) return status;
  if (reading.failure) {
    ++outcome.failed;
    outcome.failures.push_back(run.run_id + ": " + *reading.failure);
  } else {
    for (const RankData& rank : reading.ranks) {
      if (Status status = insert_rank(queries, rank, options.store_steps); !status) return status;
    }
    if (Status status = store_output_metrics(queries, run.run_id, reading.output_metrics);
        !status) {
      return status;
    }
    ++outcome.ingested;
  }
  return record_ingest(queries, run, print, reading.failure);
}

}  // namespace

Result<IngestOutcome> ingest_study(sqlite::Database& study_db, const IngestOptions& options) {
  auto has_tables = has_study_tables(study_db);
  if (!has_tables) return has_tables.status();
  if (!*has_tables) {
    return Status::error(study_db.path() +
                         ": not a study database (no study/runs tables; submit the study first)");
  }
  const fs::path base_dir = options.base_dir.empty()
                                ? fs::path(common::results_path(study_db.path(), "."))
                                : fs::path(options.base_dir);
  common::FaultInjector faults = options.faults;
  IngestOutcome outcome;
  Status status = sqlite::in_transaction(study_db, [&]() -> Status {
    if (Status schema = ensure_measurement_schema(study_db); !schema) return schema;
    auto runs = planned_runs(study_db, base_dir);
    if (!runs) return runs.status();
    PreparedQueries queries(study_db);  // the same dozen statements for every run
    for (const PlannedRun& run : *runs) {
      if (unfinished(run.state)) continue;
      if (Status ingested = ingest_run(queries, run, options, outcome); !ingested) {
        return ingested.with_context("ingesting run " + run.run_id);
      }
      faults.reached("ingest.run_written");
      if (options.after_run) {
        if (Status hook = options.after_run(run.run_id); !hook) return hook;
      }
    }
    return Status::ok();
  });
  if (!status) return status.with_context("ingest of " + study_db.path() + " rolled back");
  faults.reached("ingest.committed");
  auto mismatches = system_mismatches(study_db);
  if (!mismatches) return mismatches.status().with_context("comparing runs with their systems");
  outcome.system_mismatches = std::move(*mismatches);
  return outcome;
}

Result<IngestOutcome> ingest_study(const std::string& study_db_path, const IngestOptions& options) {
  if (!fs::exists(study_db_path)) {
    return Status::error(study_db_path + ": no such study database");
  }
  auto db = sqlite::Database::open(study_db_path, sqlite::OpenMode::kReadWrite);
  if (!db) return db.status();
  return ingest_study(*db, options);
}

}  // namespace scalestudy::results
