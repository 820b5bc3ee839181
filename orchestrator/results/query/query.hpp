// `scalestudy query`: one SQL statement, or a named query, on a read-only connection to a
// study database. Four locks keep it read-only: the file is opened read-only, PRAGMA
// query_only is set, an authorizer refuses writes, ATTACH/DETACH and pragmas that change
// state (writable_schema …), and a statement SQLite does not mark read-only is refused
// before it runs. A query runs under a time limit (a SQLite progress handler interrupts
// it) and hands rows over one at a time as SQLite steps them, so neither a runaway
// recursive query nor a huge result holds the machine. Functions; each call opens its own
// connection.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/report/text_table.hpp"

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

struct QueryLimits {
  double time_limit_s = 60;  // the statement is interrupted past this
};

// Receives a query's result as it is stepped: the column names once, then each row. An
// error from row() stops the query and is its result.
class QueryRowSink {
 public:
  virtual ~QueryRowSink() = default;
  virtual void begin(const std::vector<std::string>& columns) = 0;
  virtual Status row(const std::vector<sqlite::Value>& values) = 0;
};

// `sql_or_name`: a named query's name or one SQL statement. Rows reach `sink` as they are
// produced; on an error (including the time limit) the sink has seen a prefix of them.
Status stream_read_only_query(const std::string& study_db_path, const std::string& sql_or_name,
                              const QueryLimits& limits, QueryRowSink& sink);
// The same, every row collected in memory (for small results: named queries, export).
Result<QueryResult> run_read_only_query(const std::string& study_db_path,
                                        const std::string& sql_or_name,
                                        const QueryLimits& limits = {});

// A cell as text: full precision for measured values (bytes, timings), integral values
// without ".0".
std::string query_cell_text(const sqlite::Value& value);
Table query_table(const QueryResult& result);
std::string query_json(const QueryResult& result);  // [{"column": value, ...}, ...]
// One row as a JSON object {"column": value, ...}, as query_json writes it.
nlohmann::ordered_json query_row_json(const std::vector<std::string>& columns,
                                      const std::vector<sqlite::Value>& row);

}  // namespace scalestudy::results
