// The study database's state tables (docs/study-database.md, "State"): the contract
// between submit/status/wait, which write them, and ingest/report, which read them.
// kStudySchemaSql (idempotent: CREATE ... IF NOT EXISTS) is
// python/scalestudy/schema/study_state.sql, the one definition, embedded at build time
// (cmake/ScalestudySchema.cmake); the Python package reads the same file.
#pragma once

#include "scalestudy_schema/study_state_sql.hpp"
