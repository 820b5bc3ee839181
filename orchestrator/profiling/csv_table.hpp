// CsvTable: the table inside a profiler's CSV output. `nsys stats` and `ncu` print status
// lines before the table ("Processing [...]", " ** CUDA GPU Kernel Summary"), so the header
// is the first record that holds every required column. Cells follow RFC 4180 (quoted
// cells may hold commas, quotes and newlines); every cell keeps its line and column, so a
// bad value is reported as file:line:column with the column's name. Numbers may be quoted
// and may carry thousands separators ("5,850,000"), as nsys prints them in some versions.
// Value type; functions are pure apart from reading the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::profiling {

struct CsvCell {
  std::string text;
  int line = 0;    // 1-based
  int column = 0;  // 1-based character column where the cell starts
};

struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  std::vector<std::vector<CsvCell>> rows;  // records after the header

  // Index of a header column, or -1.
  int column(const std::string& name) const;
  // The cell of `row` in column `name` (which the header holds); an empty cell when the
  // record is short.
  CsvCell cell(const std::vector<CsvCell>& row, const std::string& name) const;
  // The cell as a number; an error "path:line:col: field 'NAME': 'x' is not a number".
  Result<double> number(const std::vector<CsvCell>& row, const std::string& name) const;
  Result<int64_t> integer(const std::vector<CsvCell>& row, const std::string& name) const;
  // "path:line:col" of a cell, for messages.
  std::string where(const CsvCell& cell) const;
};

// Parses CSV text; `path` names it in errors. An error when no record holds every column
// of `required_columns`, or a quote is left open.
Result<CsvTable> parse_csv_table(const std::string& text, const std::string& path,
                                 const std::vector<std::string>& required_columns);
Result<CsvTable> read_csv_table(const std::string& path,
                                const std::vector<std::string>& required_columns);

}  // namespace scalestudy::profiling
