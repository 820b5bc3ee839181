// A narrow RAII wrapper over the SQLite C API, shared by the workload's run writer and the
// orchestrator's study database. Errors come back as Status values naming the database
// file and the statement. A Database is used from one thread at a time; SQLite's own
// locking (with a busy timeout) arbitrates between processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/core/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace scalestudy::sqlite {

using Value = std::variant<std::monostate, int64_t, double, std::string>;

enum class OpenMode { kReadWriteCreate, kReadWrite, kReadOnly };

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Bind by 1-based position.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind_null(int index);
  Statement& bind(int index, const Value& value);

  // Advances: true when a row is available, false when done; an error otherwise.
  Result<bool> step();
  // Runs to completion, discarding rows.
  Status run();
  Status reset();

  int column_count() const;
  std::string column_name(int index) const;
  bool is_null(int index) const;
  int64_t column_int(int index) const;
  double column_double(int index) const;
  std::string column_text(int index) const;
  Value column_value(int index) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* statement, std::string context);
  sqlite3_stmt* statement_ = nullptr;
  std::string context_;  // "file: sql" for error messages
};

class Database {
 public:
  static Result<Database> open(const std::string& path, OpenMode mode = OpenMode::kReadWriteCreate);
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Runs one or more statements without results.
  Status exec(const std::string& sql);
  // PRAGMA journal_mode=WAL, waiting like the busy timeout where SQLite answers BUSY at
  // once: when several connections switch a new file together it refuses some of them
  // without calling the busy handler (waiting could deadlock while they hold shared locks).
  Status use_wal();
  Result<Statement> prepare(const std::string& sql);
  // Rows of a query as values, for small result sets (reports, tests).
  Result<std::vector<std::vector<Value>>> query(const std::string& sql,
                                                const std::vector<Value>& params = {});
  // The single value of a one-row, one-column query, if any row came back.
  Result<std::optional<Value>> query_value(const std::string& sql,
                                           const std::vector<Value>& params = {});

  Status begin_immediate() { return exec("BEGIN IMMEDIATE"); }
  Status commit() { return exec("COMMIT"); }
  Status rollback() { return exec("ROLLBACK"); }

  int64_t last_insert_rowid() const;
  int changes() const;
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

// Renders a Value for tables and CSV: NULL as empty, doubles with up to 6 significant digits.
std::string to_string(const Value& value);

// A cell's integer, reals truncated; 0 for NULL or text.
int64_t integer_of(const Value& value);

// A cell's text; empty for NULL or a number.
std::string text_of(const Value& value);

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, rolling back when it returns an error.
template <typename Body>
Status in_transaction(Database& db, Body&& body) {
  if (Status begun = db.begin_immediate(); !begun) return begun;
  Status status = body();
  if (!status) {
    db.rollback();
    return status;
  }
  return db.commit();
}

}  // namespace scalestudy::sqlite
