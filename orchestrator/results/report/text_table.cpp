#include "orchestrator/results/report/text_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace scalestudy::results {
namespace {

// Display width: UTF-8 code points (the tables use "–", "±", "×").
size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

bool looks_numeric(const std::string& text) {
  if (text.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(text[0]);
  return std::isdigit(first) ||
         ((text[0] == '-' || text[0] == '+' || text[0] == '.') && text.size() > 1 &&
          std::isdigit(static_cast<unsigned char>(text[1])));
}

std::string pad(const std::string& text, size_t width, bool right) {
  const size_t fill = width > display_width(text) ? width - display_width(text) : 0;
  return right ? std::string(fill, ' ') + text : text + std::string(fill, ' ');
}

std::string render_text(const Table& table) {
  std::vector<size_t> widths(table.headers.size(), 0);
  std::vector<bool> numeric(table.headers.size(), true);
  for (size_t c = 0; c < table.headers.size(); ++c) widths[c] = display_width(table.headers[c]);
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c]));
      if (!row[c].empty() && row[c] != "-" && !looks_numeric(row[c])) numeric[c] = false;
    }
  }
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string text;
    for (size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      text += (c ? "  " : "") + pad(cell, widths[c], numeric[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string out;
  if (!table.title.empty()) out += table.title + "\n";
  out += line(table.headers, true);
  std::vector<std::string> rules;
  for (size_t width : widths) rules.push_back(std::string(width, '-'));
  out += line(rules, true);
  for (const auto& row : table.rows) out += line(row, false);
  return table.note.empty() ? out : out + table.note + "\n";
}

std::string render_markdown(const Table& table) {
  std::string out;
  if (!table.title.empty()) out += "### " + markdown_escape(table.title) + "\n\n";
  out += "|";
  for (const auto& header : table.headers) out += " " + markdown_escape(header) + " |";
  out += "\n|";
  for (size_t c = 0; c < table.headers.size(); ++c) out += " --- |";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& value : row) out += " " + markdown_escape(value) + " |";
    out += "\n";
  }
  return table.note.empty() ? out : out + "\n" + table.note + "\n";
}

std::string render_csv(const Table& table) {
  std::string out = csv_line(table.headers);
  for (const auto& row : table.rows) out += csv_line(row);
  return out;
}

std::string render_html(const Table& table) {
  std::string out;
  if (!table.title.empty()) out += "<h2>" + html_escape(table.title) + "</h2>\n";
  out += "<table>\n<tr>";
  for (const auto& header : table.headers) out += "<th>" + html_escape(header) + "</th>";
  out += "</tr>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (const auto& value : row) {
      out += std::string(looks_numeric(value) ? "<td class=\"n\">" : "<td>") + html_escape(value) +
             "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  return table.note.empty() ? out : out + "<p>" + html_escape(table.note) + "</p>\n";
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_table(const Table& table, TableFormat format) {
  switch (format) {
    case TableFormat::kMarkdown:
      return render_markdown(table);
    case TableFormat::kCsv:
      return render_csv(table);
    case TableFormat::kHtml:
      return render_html(table);
    case TableFormat::kText:
      break;
  }
  return render_text(table);
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string text;
  for (size_t c = 0; c < cells.size(); ++c) text += (c ? "," : "") + csv_field(cells[c]);
  return text + "\n";
}

std::string format_number(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string markdown_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '|':
        escaped += "\\|";
        break;
      case '\n':
      case '\r':
        escaped += ' ';
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

}  // namespace scalestudy::results
