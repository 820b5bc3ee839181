// Test helper: reads single values and every step's loss from a rank's run database, and
// waits for a running workload's first finished epoch. Header-only.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <thread>

#include "harness/core/sqlite.hpp"

namespace scalestudy::testing {

inline std::string db_text(const std::string& path, const std::string& sql) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  REQUIRE_MESSAGE(db, db.status().message());
  auto value = db->query_value(sql);
  REQUIRE_MESSAGE(value, value.status().message());
  return *value ? sqlite::to_string(**value) : std::string("<no row>");
}

inline double db_number(const std::string& path, const std::string& sql) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  REQUIRE_MESSAGE(db, db.status().message());
  auto value = db->query_value(sql);
  REQUIRE_MESSAGE(value, value.status().message());
  REQUIRE_MESSAGE(*value, sql);
  if (const auto* integer = std::get_if<int64_t>(&**value)) return static_cast<double>(*integer);
  REQUIRE_MESSAGE(std::holds_alternative<double>(**value), sql);
  return std::get<double>(**value);
}

// Every step's loss (global step -> loss) of one rank.
using StepLosses = std::map<int64_t, double>;

inline StepLosses step_losses(const std::string& path) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  REQUIRE_MESSAGE(db, db.status().message());
  auto rows = db->query("SELECT global_step, loss FROM steps ORDER BY global_step");
  REQUIRE_MESSAGE(rows, rows.status().message());
  StepLosses losses;
  for (const auto& row : *rows) {
    REQUIRE(std::holds_alternative<double>(row[1]));
    losses[std::get<int64_t>(row[0])] = std::get<double>(row[1]);
  }
  return losses;
}

// Whether the run database at `path` holds a finished epoch. A database that does not exist
// yet, or whose writer has not created its tables yet, holds none (no test failure).
inline bool has_finished_epoch(const std::string& path) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  if (!db) return false;
  auto count = db->query_value("SELECT count(*) FROM epochs");
  return count && *count && sqlite::to_string(**count) != "0";
}

// Polls has_finished_epoch() until it holds or `timeout` passes; returns whether it held.
inline bool wait_for_finished_epoch(const std::string& path, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!has_finished_epoch(path)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace scalestudy::testing
