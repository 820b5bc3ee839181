// Reused statements (results/prepared_queries): each use sees the database as it is then,
// with that use's parameters, also after a use that failed part-way; errors name the
// statement.
#include "orchestrator/results/query/prepared_queries.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

struct TempDatabase {
  fs::path path = fs::temp_directory_path() /
                  ("scalestudy_prepared_queries_" + std::to_string(::getpid()) + ".sqlite");
  sqlite::Database db = open();
  ~TempDatabase() { fs::remove(path); }
  sqlite::Database open() {
    fs::remove(path);
    auto opened = sqlite::Database::open(path.string());
    REQUIRE(opened);
    REQUIRE(opened->exec("CREATE TABLE t (k TEXT, v INTEGER)"));
    return std::move(*opened);
  }
};

std::vector<int64_t> values_of(PreparedQueries& queries, const std::string& key) {
  std::vector<int64_t> values;
  Status status = queries.for_each_row(
      "SELECT v FROM t WHERE k = ? ORDER BY v", {key},
      [&](const sqlite::Statement& row) { values.push_back(row.column_int(0)); });
  REQUIRE_MESSAGE(status, status.message());
  return values;
}

TEST_CASE("a reused statement reads rows written since its last use, with new parameters") {
  TempDatabase temp;
  PreparedQueries queries(temp.db);
  CHECK(values_of(queries, "a").empty());
  REQUIRE(queries.run("INSERT INTO t VALUES (?, ?)", {std::string("a"), int64_t{2}}));
  REQUIRE(queries.run("INSERT INTO t VALUES (?, ?)", {std::string("a"), int64_t{1}}));
  REQUIRE(queries.run("INSERT INTO t VALUES (?, ?)", {std::string("b"), int64_t{5}}));
  CHECK(values_of(queries, "a") == std::vector<int64_t>{1, 2});
  CHECK(values_of(queries, "b") == std::vector<int64_t>{5});
  auto largest = queries.value("SELECT max(v) FROM t WHERE k = ?", {std::string("a")});
  REQUIRE(largest);
  REQUIRE(*largest);
  CHECK(std::get<int64_t>(**largest) == 2);
  auto none = queries.value("SELECT v FROM t WHERE k = ?", {std::string("c")});
  REQUIRE(none);
  CHECK_FALSE(*none);
}

TEST_CASE("a statement that failed part-way serves its next use; errors name the statement") {
  TempDatabase temp;
  PreparedQueries queries(temp.db);
  const std::string sql = "SELECT abs(?)";
  auto overflow = queries.value(sql, {std::numeric_limits<int64_t>::min()});
  REQUIRE_FALSE(overflow);
  CHECK(overflow.status().message().find("integer overflow") != std::string::npos);
  auto after = queries.value(sql, {int64_t{-3}});
  REQUIRE(after);
  REQUIRE(*after);
  CHECK(std::get<int64_t>(**after) == 3);

  Status missing = queries.run("DELETE FROM absent WHERE k = ?", {std::string("a")});
  REQUIRE_FALSE(missing);
  CHECK(missing.message().find("DELETE FROM absent") != std::string::npos);
}

}  // namespace
}  // namespace scalestudy::results
