#include "harness/core/sqlite.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using scalestudy::sqlite::Database;
using scalestudy::sqlite::in_transaction;
using scalestudy::sqlite::OpenMode;
using scalestudy::sqlite::Value;

namespace {
std::string temp_db(const char* name) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove(path);
  return path.string();
}
}  // namespace

TEST_CASE("values round-trip through bind and column_value") {
  auto db = Database::open(temp_db("scalestudy_sqlite_roundtrip.sqlite"));
  REQUIRE(db.is_ok());
  REQUIRE(db->exec("CREATE TABLE t(i INTEGER, d REAL, s TEXT, n TEXT)").is_ok());
  auto insert = db->prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
  REQUIRE(insert.is_ok());
  insert->bind(1, int64_t{42}).bind(2, 2.5).bind(3, "x'; DROP TABLE t; --").bind_null(4);
  REQUIRE(insert->run().is_ok());
  auto rows = db->query("SELECT i, d, s, n FROM t");
  REQUIRE(rows.is_ok());
  REQUIRE(rows->size() == 1);
  CHECK(std::get<int64_t>((*rows)[0][0]) == 42);
  CHECK(std::get<double>((*rows)[0][1]) == 2.5);
  CHECK(std::get<std::string>((*rows)[0][2]) == "x'; DROP TABLE t; --");
  CHECK(std::holds_alternative<std::monostate>((*rows)[0][3]));
}

TEST_CASE("a failed transaction body leaves the database as it was") {
  auto db = Database::open(temp_db("scalestudy_sqlite_txn.sqlite"));
  REQUIRE(db.is_ok());
  REQUIRE(db->exec("CREATE TABLE t(i INTEGER)").is_ok());
  auto status = in_transaction(*db, [&] {
    REQUIRE(db->exec("INSERT INTO t VALUES (1)").is_ok());
    return scalestudy::Status::error("body failed");
  });
  CHECK_FALSE(status.is_ok());
  CHECK(status.message() == "body failed");
  auto count = db->query_value("SELECT count(*) FROM t");
  REQUIRE(count.is_ok());
  CHECK(std::get<int64_t>(**count) == 0);
}

TEST_CASE("errors name the database file") {
  auto path = temp_db("scalestudy_sqlite_errors.sqlite");
  auto db = Database::open(path);
  REQUIRE(db.is_ok());
  auto statement = db->prepare("SELECT * FROM missing_table");
  REQUIRE_FALSE(statement.is_ok());
  CHECK(statement.status().message().find(path) != std::string::npos);
  CHECK(statement.status().message().find("missing_table") != std::string::npos);
}

TEST_CASE("read-only connections refuse writes") {
  auto path = temp_db("scalestudy_sqlite_readonly.sqlite");
  {
    auto db = Database::open(path);
    REQUIRE(db->exec("CREATE TABLE t(i INTEGER)").is_ok());
  }
  auto db = Database::open(path, OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto status = db->exec("INSERT INTO t VALUES (1)");
  CHECK_FALSE(status.is_ok());
  CHECK(status.message().find("readonly") != std::string::npos);
}
