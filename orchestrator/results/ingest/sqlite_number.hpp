// Reading a numeric SQLite cell: SQLite hands back integers for whole-number values even in
// REAL columns, so readers of measurements widen both to double.
#pragma once

#include <optional>
#include <variant>

#include "harness/core/sqlite.hpp"

namespace scalestudy::results {

// The cell's number, integers widened; nothing for NULL or text.
inline std::optional<double> sqlite_number(const sqlite::Value& value) {
  if (const auto* real = std::get_if<double>(&value)) return *real;
  if (const auto* integer = std::get_if<int64_t>(&value)) return static_cast<double>(*integer);
  return std::nullopt;
}

// The cell's number, or 0 for NULL or text.
inline double as_double(const sqlite::Value& value) {
  return sqlite_number(value).value_or(0);
}

}  // namespace scalestudy::results
