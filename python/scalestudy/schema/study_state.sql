-- The study database's state tables (docs/study-database.md, "State"): the contract
-- between submit/status/wait, which write them, and ingest/report, which read them. The one
-- definition: the C++ build embeds this file (orchestrator/campaign/study_state_schema.hpp),
-- and the Python package reads it. Idempotent (IF NOT EXISTS). A database made before a
-- column was added gets the column when submit/status/wait next open it (StudyState adds
-- what these statements have and the file lacks), so a column added here needs a DEFAULT
-- or may be NULL.

-- @constant kStudySchemaSql
CREATE TABLE IF NOT EXISTS study (
  name          TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  source_path   TEXT NOT NULL,
  baseline_json TEXT NOT NULL,
  report_json   TEXT NOT NULL DEFAULT '{}',
  max_attempts  INTEGER NOT NULL DEFAULT 3,
  policy_json   TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS runs (
  run_id         TEXT PRIMARY KEY,
  repeat         INTEGER NOT NULL,
  nodes          INTEGER NOT NULL,
  tasks_per_node INTEGER NOT NULL,
  world_size     INTEGER NOT NULL,
  gpus_per_node  INTEGER NOT NULL,
  global_batch   INTEGER NOT NULL,
  per_gpu_batch  INTEGER NOT NULL,
  varied_json    TEXT NOT NULL,
  params_json    TEXT NOT NULL,
  spec_json      TEXT NOT NULL,
  profiled       INTEGER NOT NULL DEFAULT 0,
  state          TEXT NOT NULL,
  attempts       INTEGER NOT NULL DEFAULT 0,
  scheduler      TEXT,
  job_id         TEXT,
  reason         TEXT,
  submitted_at   TEXT, started_at TEXT, finished_at TEXT,
  out_dir        TEXT NOT NULL,
  planned        INTEGER NOT NULL DEFAULT 1,
  claim_token    TEXT,
  claimed_at     TEXT,
  failure_class  TEXT,
  failure_evidence TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
  run_id TEXT NOT NULL, attempt INTEGER NOT NULL, scheduler TEXT NOT NULL, job_id TEXT NOT NULL,
  state TEXT NOT NULL, reason TEXT, submitted_at TEXT NOT NULL, finished_at TEXT,
  failure_class TEXT, failure_evidence TEXT,
  PRIMARY KEY (run_id, attempt)
);
CREATE TABLE IF NOT EXISTS placements (
  run_id TEXT NOT NULL, attempt INTEGER NOT NULL, job_id TEXT NOT NULL, job_step TEXT,
  node_list TEXT, queued_at TEXT, started_at TEXT, ended_at TEXT,
  PRIMARY KEY (run_id, attempt)
);
CREATE TABLE IF NOT EXISTS campaign (
  only_row INTEGER PRIMARY KEY CHECK (only_row = 1), name TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS submit_choices (
  only_row INTEGER PRIMARY KEY CHECK (only_row = 1), scheduler TEXT NOT NULL,
  options_json TEXT NOT NULL, recorded_at TEXT NOT NULL
);
