// `scalestudy query`: one SQL statement, or a named query, on a read-only connection to a
// study database. Four locks keep it read-only: the file is opened read-only, PRAGMA
// query_only is set, an authorizer refuses writes, ATTACH/DETACH and pragmas that change
// state (writable_schema …), and a statement SQLite does not mark read-only is refused
// before it runs. Functions; each call opens its own connection.
#pragma once

#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/text_table.hpp"

namespace scalestudy::results {

struct NamedQuery {
  const char* name;
  const char* description;
  const char* sql;
};
const std::vector<NamedQuery>& named_queries();  // runs, failed, throughput, phases, ...

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<sqlite::Value>> rows;
};

// `sql_or_name`: a named query's name or one SQL statement.
Result<QueryResult> run_read_only_query(const std::string& study_db_path,
                                        const std::string& sql_or_name);

Table query_table(const QueryResult& result);
std::string query_json(const QueryResult& result);  // [{"column": value, ...}, ...]

}  // namespace scalestudy::results
