// The run database schema (version 1), exactly as docs/run-database.md documents it: the
// contract between a workload rank (harness/record writes it) and the orchestrator's
// ingest (orchestrator/results reads it). Its tables, their column lists and the version
// are spelled here only; tests/core pins the lists to the CREATE statements. Torch-free
// constants.
#pragma once

namespace scalestudy::run_schema {

// PRAGMA user_version of a run database; readers refuse any other.
inline constexpr int kVersion = 1;

inline constexpr const char* kCreateSql = R"sql(
CREATE TABLE run (
  run_id        TEXT NOT NULL,
  workload      TEXT NOT NULL,
  rank          INTEGER NOT NULL,
  local_rank    INTEGER NOT NULL,
  world_size    INTEGER NOT NULL,
  host          TEXT NOT NULL,
  device        TEXT NOT NULL,
  backend       TEXT NOT NULL,
  config_json   TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  finished_at   TEXT,
  status        TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  failure_reason TEXT
);
CREATE TABLE provenance (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE steps (
  global_step      INTEGER PRIMARY KEY,
  epoch            INTEGER NOT NULL,
  warmup           INTEGER NOT NULL,
  samples          INTEGER NOT NULL,
  data_ms          REAL NOT NULL,
  forward_ms       REAL NOT NULL,
  backward_ms      REAL NOT NULL,
  comm_exposed_ms  REAL NOT NULL,
  optimizer_ms     REAL NOT NULL,
  step_ms          REAL NOT NULL,
  loss             REAL
);
CREATE TABLE epochs (
  epoch          INTEGER PRIMARY KEY,
  lr             REAL NOT NULL,
  train_loss     REAL NOT NULL,
  train_acc      REAL,
  val_loss       REAL,
  val_acc        REAL,
  samples_per_s  REAL NOT NULL,
  epoch_s        REAL NOT NULL
);
CREATE TABLE summary (name TEXT PRIMARY KEY, value REAL NOT NULL);
CREATE TABLE telemetry (
  t_s              REAL NOT NULL,
  cpu_rss_bytes    INTEGER,
  gpu_util_pct     REAL,
  gpu_mem_used_bytes INTEGER,
  gpu_power_w      REAL,
  gpu_temp_c       REAL
);
CREATE TABLE collectives (
  op             TEXT NOT NULL,
  bytes          INTEGER NOT NULL,
  dtype          TEXT NOT NULL,
  iterations     INTEGER NOT NULL,
  time_us        REAL NOT NULL,
  algbw_gbps     REAL NOT NULL,
  busbw_gbps     REAL NOT NULL
);
)sql";

// Tables added within version 1, after the first files were written: a writer creates them
// with the rest (and in an earlier attempt's file it continues); readers take a file
// without them as one that recorded no such data.
// `arrivals`: per measured step, when this rank reached the gradient all-reduce (its first
// bucket ready, before any wait) on its host's realtime clock, in seconds since the Unix
// epoch; the summary's clock_offset_s puts it on rank 0's clock where hosts differ.
inline constexpr const char* kAddedSql = R"sql(
CREATE TABLE IF NOT EXISTS arrivals (
  global_step     INTEGER PRIMARY KEY,
  arrival_unix_s  REAL NOT NULL
);
)sql";

// A table and its columns in CREATE order, comma-separated, ready for SELECT and INSERT.
struct Table {
  const char* name;
  const char* columns;
};

// `run` has one row per file. Its identity columns (run_id, rank) key every row that
// ingest copies; kRun lists the other columns.
inline constexpr Table kRun = {"run",
                               "workload, local_rank, world_size, host, device, backend, "
                               "config_json, started_at, finished_at, status, failure_reason"};
inline constexpr Table kProvenance = {"provenance", "key, value"};
inline constexpr Table kSteps = {"steps",
                                 "global_step, epoch, warmup, samples, data_ms, forward_ms, "
                                 "backward_ms, comm_exposed_ms, optimizer_ms, step_ms, loss"};
inline constexpr Table kEpochs = {
    "epochs", "epoch, lr, train_loss, train_acc, val_loss, val_acc, samples_per_s, epoch_s"};
inline constexpr Table kSummary = {"summary", "name, value"};
inline constexpr Table kTelemetry = {
    "telemetry", "t_s, cpu_rss_bytes, gpu_util_pct, gpu_mem_used_bytes, gpu_power_w, gpu_temp_c"};
inline constexpr Table kCollectives = {
    "collectives", "op, bytes, dtype, iterations, time_us, algbw_gbps, busbw_gbps"};

inline constexpr Table kArrivals = {"arrivals", "global_step, arrival_unix_s"};

inline constexpr Table kTables[] = {kRun,     kProvenance, kSteps,       kEpochs,
                                    kSummary, kTelemetry,  kCollectives, kArrivals};

}  // namespace scalestudy::run_schema
