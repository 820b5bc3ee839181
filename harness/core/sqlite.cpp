#include "harness/core/sqlite.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

namespace scalestudy::sqlite {
namespace {

// Long enough for a concurrent `submit` or an ingest to finish its transaction.
constexpr int kBusyTimeoutMs = 30000;

Status error_status(sqlite3* db, const std::string& context) {
  return Status::error(context + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

Statement::Statement(sqlite3_stmt* statement, std::string context)
    : statement_(statement), context_(std::move(context)) {}

Statement::Statement(Statement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr)), context_(std::move(other.context_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(statement_);
    statement_ = std::exchange(other.statement_, nullptr);
    context_ = std::move(other.context_);
  }
  return *this;
}

Statement::~Statement() {
  sqlite3_finalize(statement_);
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(statement_, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(statement_, index, value);
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(statement_, index);
  return *this;
}

Statement& Statement::bind(int index, const Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return bind(index, *i);
  if (const auto* d = std::get_if<double>(&value)) return bind(index, *d);
  if (const auto* s = std::get_if<std::string>(&value)) return bind(index, *s);
  return bind_null(index);
}

Result<bool> Statement::step() {
  int code = sqlite3_step(statement_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  return error_status(sqlite3_db_handle(statement_), context_);
}

Status Statement::run() {
  while (true) {
    Result<bool> row = step();
    if (!row) return row.status();
    if (!*row) return reset();
  }
}

Status Statement::reset() {
  // sqlite3_reset repeats the last step's error, already reported by step().
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
  return Status::ok();
}

int Statement::column_count() const {
  return sqlite3_column_count(statement_);
}

std::string Statement::column_name(int index) const {
  return sqlite3_column_name(statement_, index);
}

bool Statement::is_null(int index) const {
  return sqlite3_column_type(statement_, index) == SQLITE_NULL;
}

int64_t Statement::column_int(int index) const {
  return sqlite3_column_int64(statement_, index);
}

double Statement::column_double(int index) const {
  return sqlite3_column_double(statement_, index);
}

std::string Statement::column_text(int index) const {
  const auto* text = sqlite3_column_text(statement_, index);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_column_bytes(statement_, index)))
              : std::string();
}

Value Statement::column_value(int index) const {
  switch (sqlite3_column_type(statement_, index)) {
    case SQLITE_INTEGER:
      return column_int(index);
    case SQLITE_FLOAT:
      return column_double(index);
    case SQLITE_NULL:
      return std::monostate{};
    default:
      return column_text(index);
  }
}

Result<Database> Database::open(const std::string& path, OpenMode mode) {
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case OpenMode::kReadWriteCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case OpenMode::kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case OpenMode::kReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      break;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Status status = error_status(db, "cannot open database " + path);
    sqlite3_close(db);
    return status;
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 1);
  return Database(db, path);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Database::~Database() {
  sqlite3_close(db_);
}

Status Database::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return Status::error(path_ + ": " + text + " (in: " + sql.substr(0, 120) + ")");
  }
  return Status::ok();
}

Status Database::use_wal() {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    const int result = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (result == SQLITE_OK) return Status::ok();
    if ((result & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
      return error_status(db_, path_ + ": PRAGMA journal_mode=WAL");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Result<Statement> Database::prepare(const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &statement, nullptr) !=
      SQLITE_OK) {
    return error_status(db_, path_ + ": " + sql.substr(0, 120));
  }
  return Statement(statement, path_ + ": " + sql.substr(0, 120));
}

Result<std::vector<std::vector<Value>>> Database::query(const std::string& sql,
                                                        const std::vector<Value>& params) {
  Result<Statement> statement = prepare(sql);
  if (!statement) return statement.status();
  for (size_t i = 0; i < params.size(); ++i) statement->bind(static_cast<int>(i + 1), params[i]);
  std::vector<std::vector<Value>> rows;
  while (true) {
    Result<bool> row = statement->step();
    if (!row) return row.status();
    if (!*row) break;
    std::vector<Value> values;
    for (int column = 0; column < statement->column_count(); ++column) {
      values.push_back(statement->column_value(column));
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

Result<std::optional<Value>> Database::query_value(const std::string& sql,
                                                   const std::vector<Value>& params) {
  auto rows = query(sql, params);
  if (!rows) return rows.status();
  if (rows->empty() || rows->front().empty()) return std::optional<Value>();
  return std::optional<Value>(rows->front().front());
}

int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

int Database::changes() const {
  return sqlite3_changes(db_);
}

std::string to_string(const Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", *d);
    return buffer;
  }
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  return "";
}

int64_t integer_of(const Value& value) {
  if (const auto* number = std::get_if<int64_t>(&value)) return *number;
  if (const auto* real = std::get_if<double>(&value)) return static_cast<int64_t>(*real);
  return 0;
}

std::string text_of(const Value& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  return "";
}

}  // namespace scalestudy::sqlite
