-- The run database (docs/run-database.md, schema version 1): what each rank of a run writes
-- to <out-dir>/rank<RANK>.sqlite. The one definition: the C++ build embeds this file
-- (cmake/ScalestudySchema.cmake -> harness/core/run_schema.hpp), and the Python package
-- (scalestudy.record, scalestudy.schema) reads it. Each `-- @constant NAME` line starts a
-- section the C++ side gets as a string constant of that name.

-- @constant kCreateSql
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

-- @constant kAddedSql
-- Tables added within version 1, after the first files were written: a writer creates them
-- with the rest (and in an earlier attempt's file it continues); readers take a file
-- without them as one that recorded no such data.
CREATE TABLE IF NOT EXISTS arrivals (
  global_step     INTEGER PRIMARY KEY,
  arrival_unix_s  REAL NOT NULL
);
-- One row per epoch with measured steps: the device's energy (NVML's counter read at the
-- window's ends), power, SM clock and clock-event (throttle) reasons over those steps.
-- Empty figures where NVML could not give them, with the reason in `unavailable`.
CREATE TABLE IF NOT EXISTS energy (
  epoch             INTEGER PRIMARY KEY,
  samples           INTEGER NOT NULL,
  measured_s        REAL NOT NULL,
  energy_j          REAL,
  avg_power_w       REAL,
  peak_power_w      REAL,
  sm_clock_max_mhz  REAL,
  sm_clock_min_mhz  REAL,
  clock_events      TEXT NOT NULL,
  unavailable       TEXT NOT NULL
);
