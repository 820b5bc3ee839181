-- The study database's measurement tables (docs/study-database.md, "Measurements"): the
-- columns `scalestudy ingest` copies from the run databases and the report, query and
-- export commands read. The one definition: the C++ build embeds this file
-- (orchestrator/results/ingest/measurement_schema.cpp), and the Python package reads it.
-- Idempotent (IF NOT EXISTS).

-- @constant kMeasurementSql
CREATE TABLE IF NOT EXISTS m_ingest (
  run_id      TEXT PRIMARY KEY,
  status      TEXT NOT NULL CHECK (status IN ('ingested', 'failed')),
  reason      TEXT,
  ranks       INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  ingested_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS m_run (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL,
  workload TEXT NOT NULL, local_rank INTEGER NOT NULL, world_size INTEGER NOT NULL,
  host TEXT NOT NULL, device TEXT NOT NULL, backend TEXT NOT NULL, config_json TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL, failure_reason TEXT,
  PRIMARY KEY (run_id, rank)
);
CREATE TABLE IF NOT EXISTS m_provenance (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (run_id, rank, key)
);
CREATE TABLE IF NOT EXISTS m_summary (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (run_id, rank, name)
);
CREATE TABLE IF NOT EXISTS m_epochs (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, epoch INTEGER NOT NULL,
  lr REAL NOT NULL, train_loss REAL NOT NULL, train_acc REAL, val_loss REAL, val_acc REAL,
  samples_per_s REAL NOT NULL, epoch_s REAL NOT NULL,
  PRIMARY KEY (run_id, rank, epoch)
);
CREATE TABLE IF NOT EXISTS m_phases (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL,
  phase TEXT NOT NULL CHECK (phase IN ('data', 'forward', 'backward', 'comm_exposed',
                                       'optimizer', 'step')),
  steps INTEGER NOT NULL, median_ms REAL NOT NULL, mean_ms REAL NOT NULL,
  min_ms REAL NOT NULL, max_ms REAL NOT NULL, total_ms REAL NOT NULL,
  PRIMARY KEY (run_id, rank, phase)
);
CREATE TABLE IF NOT EXISTS m_steps (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, global_step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, warmup INTEGER NOT NULL, samples INTEGER NOT NULL,
  data_ms REAL NOT NULL, forward_ms REAL NOT NULL, backward_ms REAL NOT NULL,
  comm_exposed_ms REAL NOT NULL, optimizer_ms REAL NOT NULL, step_ms REAL NOT NULL, loss REAL,
  PRIMARY KEY (run_id, rank, global_step)
);
CREATE TABLE IF NOT EXISTS m_arrivals (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, global_step INTEGER NOT NULL,
  arrival_unix_s REAL NOT NULL,
  PRIMARY KEY (run_id, rank, global_step)
);
CREATE TABLE IF NOT EXISTS m_energy (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, epoch INTEGER NOT NULL,
  samples INTEGER NOT NULL, measured_s REAL NOT NULL, energy_j REAL, avg_power_w REAL,
  peak_power_w REAL, sm_clock_max_mhz REAL, sm_clock_min_mhz REAL,
  clock_events TEXT NOT NULL, unavailable TEXT NOT NULL,
  PRIMARY KEY (run_id, rank, epoch)
);
CREATE TABLE IF NOT EXISTS m_telemetry (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, t_s REAL NOT NULL,
  cpu_rss_bytes INTEGER, gpu_util_pct REAL, gpu_mem_used_bytes INTEGER,
  gpu_power_w REAL, gpu_temp_c REAL
);
CREATE INDEX IF NOT EXISTS m_telemetry_run ON m_telemetry (run_id, rank);
CREATE TABLE IF NOT EXISTS m_collectives (
  run_id TEXT NOT NULL, rank INTEGER NOT NULL, op TEXT NOT NULL, bytes INTEGER NOT NULL,
  dtype TEXT NOT NULL, iterations INTEGER NOT NULL, time_us REAL NOT NULL,
  algbw_gbps REAL NOT NULL, busbw_gbps REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS m_collectives_run ON m_collectives (run_id, rank);
CREATE TABLE IF NOT EXISTS m_output_metrics (
  run_id TEXT NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL, role TEXT NOT NULL,
  reduction TEXT NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS m_output_metric_ranks (
  run_id TEXT NOT NULL, name TEXT NOT NULL, rank INTEGER NOT NULL, value REAL NOT NULL,
  matches INTEGER NOT NULL,
  PRIMARY KEY (run_id, name, rank)
);
