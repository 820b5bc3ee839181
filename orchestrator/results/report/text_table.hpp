// A titled table of text cells (with a note below it) and its renderings: an aligned terminal table
// (numbers right-aligned, text left), GitHub markdown, CSV (RFC 4180 quoting) and an HTML table.
// Shared by the report, query and export commands. Value type; renderers are pure.
#pragma once

#include <string>
#include <vector>

namespace scalestudy::results {

struct Table {
  std::string title;  // printed above the table; empty: none
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::string note;  // printed below the table, not in CSV; empty: none
};

enum class TableFormat { kText, kMarkdown, kCsv, kHtml };

std::string render_table(const Table& table, TableFormat format);
std::string csv_field(const std::string& text);
std::string csv_line(const std::vector<std::string>& cells);  // fields, comma, newline
std::string html_escape(const std::string& text);
// Markdown renderers pass HTML through: a value such as <img onerror=...> from a study
// would be live where the report is shown. &, <, > become entities, '|' becomes \| (a
// cell's end), a newline a space (a row's end).
std::string markdown_escape(const std::string& text);
// `value` through printf's `format` ("%.1f", "%+.1f%%"; one double), for cells and lines.
std::string format_number(double value, const char* format = "%.4g");

}  // namespace scalestudy::results
