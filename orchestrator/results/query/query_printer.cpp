#include "orchestrator/results/query/query_printer.hpp"

#include "orchestrator/results/report/text_table.hpp"

namespace scalestudy::results {

void CsvQueryPrinter::begin(const std::vector<std::string>& columns) {
  std::fputs(csv_line(columns).c_str(), out_);
}

Status CsvQueryPrinter::row(const std::vector<sqlite::Value>& values) {
  std::vector<std::string> cells;
  for (const auto& value : values) cells.push_back(query_cell_text(value));
  std::fputs(csv_line(cells).c_str(), out_);
  return Status::ok();
}

Status JsonQueryPrinter::row(const std::vector<sqlite::Value>& values) {
  // Indented as one element of query_json()'s array.
  std::string object = query_row_json(columns_, values).dump(2);
  std::string indented = "  ";
  for (char c : object) {
    indented += c;
    if (c == '\n') indented += "  ";
  }
  std::fputs(rows_++ ? ",\n" : "[\n", out_);
  std::fputs(indented.c_str(), out_);
  return Status::ok();
}

void JsonQueryPrinter::finish() {
  std::fputs(rows_ ? "\n]\n" : "[]\n", out_);
}

Status TableQueryCollector::row(const std::vector<sqlite::Value>& values) {
  if (result_.rows.size() >= max_rows_) {
    return Status::error("more than " + std::to_string(max_rows_) +
                         " rows for a text table; --format csv or json prints any number");
  }
  result_.rows.push_back(values);
  return Status::ok();
}

}  // namespace scalestudy::results
