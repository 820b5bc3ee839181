#include "orchestrator/results/ingest/file_metrics.hpp"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "orchestrator/study/json_path.hpp"

namespace scalestudy::results {
namespace {

// One CSV record's cells (RFC 4180 quoting: "a, b" and "" for a quote inside quotes).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else if (c != '\r' || quoted) {
      cells.back() += c;
    }
  }
  return cells;
}

std::optional<double> number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') return std::nullopt;
  return value;
}

Result<std::vector<double>> read_csv_column(const MetricSpec& spec, const std::string& path,
                                            std::istream& in) {
  std::string line;
  if (!std::getline(in, line)) return Status::error(path + ": empty, no header row");
  const std::vector<std::string> header = csv_cells(line);
  size_t column = 0;
  while (column < header.size() && header[column] != spec.key) ++column;
  if (column == header.size()) {
    std::string names;
    for (const auto& name : header) names += (names.empty() ? "" : ", ") + name;
    return Status::error(path + ": no column '" + spec.key + "' (the header has " + names + ")");
  }
  std::vector<double> values;
  for (long long line_number = 2; std::getline(in, line); ++line_number) {
    const std::vector<std::string> cells = csv_cells(line);
    if (column >= cells.size() || cells[column].empty()) continue;
    auto value = number(cells[column]);
    if (!value) {
      return Status::error(path + ":" + std::to_string(line_number) + ": column '" + spec.key +
                           "' holds '" + cells[column].substr(0, 40) + "', not a number");
    }
    values.push_back(*value);
  }
  return values;
}

// Appends the number (or the list of numbers) at a path; an error for anything else.
Status take_numbers(const nlohmann::json& value, const std::string& where,
                    std::vector<double>& values) {
  if (value.is_number()) {
    values.push_back(value.get<double>());
    return Status::ok();
  }
  if (value.is_array()) {
    for (const auto& item : value) {
      if (!item.is_number()) break;
      values.push_back(item.get<double>());
    }
    if (values.size() == value.size()) return Status::ok();
  }
  return Status::error(where + " holds " + value.dump().substr(0, 40) + ", not a number");
}

Result<std::vector<double>> read_json_lines(const MetricSpec& spec,
                                            const std::vector<JsonPathStep>& steps,
                                            const std::string& path, std::istream& in) {
  std::vector<double> values;
  std::string line;
  for (long long line_number = 1; std::getline(in, line); ++line_number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto document = nlohmann::json::parse(line, nullptr, false);
    const std::string where = path + ":" + std::to_string(line_number);
    if (document.is_discarded()) return Status::error(where + ": not a JSON line");
    const nlohmann::json* value = follow_json_path(document, steps);
    if (!value || value->is_null()) continue;
    if (Status taken = take_numbers(*value, where + ": field '" + spec.key + "'", values); !taken) {
      return taken;
    }
  }
  return values;
}

Result<std::vector<double>> read_json_document(const MetricSpec& spec,
                                               const std::vector<JsonPathStep>& steps,
                                               const std::string& path, std::istream& in) {
  const auto document = nlohmann::json::parse(in, nullptr, false);
  if (document.is_discarded()) return Status::error(path + ": not a JSON document");
  const nlohmann::json* value = follow_json_path(document, steps);
  std::vector<double> values;
  if (!value) return values;  // nothing matched: the caller says so
  if (Status taken = take_numbers(*value, path + ": path '" + spec.key + "'", values); !taken) {
    return taken;
  }
  return values;
}

}  // namespace

Result<std::vector<double>> read_structured_metric(const MetricSpec& spec,
                                                   const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot be read (the program wrote no such file?)");
  if (spec.source == MetricSource::kCsv) return read_csv_column(spec, path, in);
  auto steps = parse_json_path(spec.key);
  if (!steps) return steps.status().with_context("metric '" + spec.name + "'");
  if (spec.source == MetricSource::kJsonLines) return read_json_lines(spec, *steps, path, in);
  return read_json_document(spec, *steps, path, in);
}

}  // namespace scalestudy::results
