// The measurement tables (`m_*`) of the study database: the columns ingest writes and the
// report, query and export commands read. docs/study-database.md documents them;
// python/scalestudy/schema/measurements.sql is their single definition (embedded at build
// time; the Python package reads it too). Stateless functions.
#pragma once

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

// Creates the m_* tables and indexes if they are missing. Idempotent.
Status ensure_measurement_schema(sqlite::Database& study_db);

// True when the study database has the campaign-owned tables ingest joins to (study, runs).
Result<bool> has_study_tables(sqlite::Database& study_db);

// A WHERE condition selecting the runs of the current plan: campaign keeps runs dropped from
// the study YAML with planned = 0 (when its runs table has that column).
Result<std::string> current_runs_condition(sqlite::Database& study_db);

}  // namespace scalestudy::results
