// Statements prepared once per SQL text and reused, for code that runs the same few
// statements for each of many runs (report loading, ingest): preparing them anew each
// time was about half of a report's time over a 1,000-run study. Each use resets its
// statement first, so a reused one reads the database as it is then. Holds the Database
// by reference (it must outlive this); one thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

class PreparedQueries {
 public:
  explicit PreparedQueries(sqlite::Database& db) : db_(db) {}

  // The statement of `sql`, prepared on first use, reset and bound to `params`; valid
  // until this object goes. Errors name the database and the statement, as
  // Database::prepare's do.
  Result<sqlite::Statement*> statement(const std::string& sql,
                                       const std::vector<sqlite::Value>& params = {});
  // Runs `sql` to completion, discarding rows.
  Status run(const std::string& sql, const std::vector<sqlite::Value>& params);

  // Runs `sql` with `params` bound by position, calling on_row(const sqlite::Statement&)
  // for each row.
  template <typename OnRow>
  Status for_each_row(const std::string& sql, const std::vector<sqlite::Value>& params,
                      OnRow&& on_row) {
    auto prepared = statement(sql, params);
    if (!prepared) return prepared.status();
    for (;;) {
      Result<bool> row = (*prepared)->step();
      if (!row) return row.status();
      if (!*row) return (*prepared)->reset();
      on_row(static_cast<const sqlite::Statement&>(**prepared));
    }
  }
  // The first column of the first row, if a row came back (as Database::query_value).
  Result<std::optional<sqlite::Value>> value(const std::string& sql,
                                             const std::vector<sqlite::Value>& params);

 private:
  sqlite::Database& db_;
  std::map<std::string, sqlite::Statement> statements_;
};

}  // namespace scalestudy::results
