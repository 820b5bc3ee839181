#include "harness/core/run_schema.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "harness/core/sqlite.hpp"

namespace scalestudy::run_schema {
namespace {

// "a, b, c": the table's columns in CREATE order, as the schema's lists spell them,
// leaving out `skipped`.
std::string created_columns(sqlite::Database& db, const std::string& table,
                            const std::set<std::string>& skipped = {}) {
  auto rows = db.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", {table});
  REQUIRE(rows.is_ok());
  std::string columns;
  for (const auto& row : *rows) {
    const std::string name = sqlite::to_string(row[0]);
    if (skipped.count(name)) continue;
    columns += (columns.empty() ? "" : ", ") + name;
  }
  return columns;
}

TEST_CASE("the run schema's column lists are the columns its CREATE statements make") {
  auto db = sqlite::Database::open(":memory:");
  REQUIRE(db.is_ok());
  REQUIRE(db->exec(kCreateSql).is_ok());
  REQUIRE(db->exec(kAddedSql).is_ok());
  std::set<std::string> listed;
  for (const Table& table : kTables) {
    INFO(table.name);
    listed.insert(table.name);
    const bool run = std::string(table.name) == kRun.name;
    CHECK(created_columns(*db, table.name,
                          run ? std::set<std::string>{"run_id", "rank"}
                              : std::set<std::string>{}) == table.columns);
  }
  auto tables = db->query("SELECT name FROM sqlite_master WHERE type = 'table'");
  REQUIRE(tables.is_ok());
  CHECK(tables->size() == listed.size());
  for (const auto& row : *tables) CHECK(listed.count(sqlite::to_string(row[0])) == 1);
  CHECK(kVersion == 1);
}

}  // namespace
}  // namespace scalestudy::run_schema
