// The run database schema (version 1), exactly as docs/run-database.md documents it: the
// contract between a workload rank and the orchestrator's ingest. Constants only.
#pragma once

namespace scalestudy::record {

constexpr int kRunSchemaVersion = 1;

constexpr const char* kRunSchemaSql = R"sql(
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

}  // namespace scalestudy::record
