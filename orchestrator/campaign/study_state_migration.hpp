// Brings a study database made by an earlier scalestudy up to the state schema
// (python/scalestudy/schema/study_state.sql): every column the schema's tables have and the
// database's lack is added, as the schema declares it. Derived from the one schema, so a
// column added there needs nothing here (it must be nullable or have a DEFAULT).
#pragma once

#include <string>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::campaign {

// Inside the caller's transaction: ALTER TABLE ... ADD COLUMN for each column of
// `schema_sql`'s tables that `db`'s tables of the same name lack.
Status add_missing_columns(sqlite::Database& db, const std::string& schema_sql);

}  // namespace scalestudy::campaign
