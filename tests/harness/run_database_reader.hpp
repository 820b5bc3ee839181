// Test helper: reads single values from a rank's run database. Header-only.
#pragma once

#include <doctest/doctest.h>

#include <string>

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

}  // namespace scalestudy::testing
