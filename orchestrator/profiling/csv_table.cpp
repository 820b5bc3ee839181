#include "orchestrator/profiling/csv_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace scalestudy::profiling {
namespace {

// Splits text into records of cells, tracking where each cell starts.
Result<std::vector<std::vector<CsvCell>>> split_records(const std::string& text,
                                                        const std::string& path) {
  std::vector<std::vector<CsvCell>> records;
  std::vector<CsvCell> record;
  CsvCell cell;
  int line = 1, column = 1;
  bool in_quotes = false, cell_started = false;
  int quote_line = 0, quote_column = 0;
  auto start_cell = [&] {
    if (!cell_started) {
      cell.line = line;
      cell.column = column;
      cell_started = true;
    }
  };
  auto end_cell = [&] {
    start_cell();
    record.push_back(std::move(cell));
    cell = CsvCell();
    cell_started = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell.text += '"';
        ++i;
        ++column;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cell.text += c;
      }
    } else if (c == '"') {
      start_cell();
      in_quotes = true;
      quote_line = line;
      quote_column = column;
    } else if (c == ',') {
      end_cell();
    } else if (c == '\n') {
      if (cell_started || !record.empty()) end_cell();
      if (!record.empty()) records.push_back(std::move(record));
      record.clear();
    } else if (c != '\r') {
      start_cell();
      cell.text += c;
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  if (in_quotes) {
    return Status::error(path + ":" + std::to_string(quote_line) + ":" +
                         std::to_string(quote_column) + ": quoted cell is never closed");
  }
  if (cell_started || !record.empty()) end_cell();
  if (!record.empty()) records.push_back(std::move(record));
  return records;
}

std::string trimmed(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

}  // namespace

int CsvTable::column(const std::string& name) const {
  auto found = std::find(header.begin(), header.end(), name);
  return found == header.end() ? -1 : static_cast<int>(found - header.begin());
}

CsvCell CsvTable::cell(const std::vector<CsvCell>& row, const std::string& name) const {
  int index = column(name);
  if (index >= 0 && static_cast<size_t>(index) < row.size()) return row[index];
  CsvCell missing;
  if (!row.empty()) {
    missing.line = row.back().line;
    missing.column = row.back().column;
  }
  return missing;
}

std::string CsvTable::where(const CsvCell& cell) const {
  return path + ":" + std::to_string(cell.line) + ":" + std::to_string(cell.column);
}

Result<double> CsvTable::number(const std::vector<CsvCell>& row, const std::string& name) const {
  CsvCell found = cell(row, name);
  std::string digits;
  for (char c : trimmed(found.text)) {
    if (c != ',') digits += c;
  }
  char* end = nullptr;
  errno = 0;
  double value = digits.empty() ? 0 : std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || errno != 0) {
    return Status::error(where(found) + ": field '" + name + "': '" + found.text +
                         "' is not a number");
  }
  return value;
}

Result<int64_t> CsvTable::integer(const std::vector<CsvCell>& row, const std::string& name) const {
  auto value = number(row, name);
  if (!value) return value.status();
  return static_cast<int64_t>(*value + (*value < 0 ? -0.5 : 0.5));
}

Result<CsvTable> parse_csv_table(const std::string& text, const std::string& path,
                                 const std::vector<std::string>& required_columns) {
  auto records = split_records(text, path);
  if (!records) return records.status();
  CsvTable table;
  table.path = path;
  for (size_t r = 0; r < records->size(); ++r) {
    std::vector<std::string> names;
    for (const CsvCell& cell : (*records)[r]) names.push_back(trimmed(cell.text));
    bool has_all = std::all_of(required_columns.begin(), required_columns.end(), [&](auto& name) {
      return std::find(names.begin(), names.end(), name) != names.end();
    });
    if (!has_all) continue;
    table.header = std::move(names);
    table.rows.assign(std::make_move_iterator(records->begin() + r + 1),
                      std::make_move_iterator(records->end()));
    return table;
  }
  std::string wanted;
  for (const auto& name : required_columns) wanted += (wanted.empty() ? "'" : ", '") + name + "'";
  return Status::error(path + ":1:1: no header row with the columns " + wanted);
}

Result<CsvTable> read_csv_table(const std::string& path,
                                const std::vector<std::string>& required_columns) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::error(path + ": cannot read the file");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_csv_table(text.str(), path, required_columns);
}

}  // namespace scalestudy::profiling
