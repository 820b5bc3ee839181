#include "orchestrator/results/report/report_render.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "orchestrator/results/report/member_plot.hpp"

namespace scalestudy::results {

namespace {

std::string verdict_line(const Report& report) {
  if (!report.sensitivity) return "";
  const SensitivityVerdict& verdict = *report.sensitivity;
  char text[256];
  std::string line = verdict.beats_baseline() ? "best configuration: "
                                              : "no setting beat the baseline (" +
                                                    verdict.baseline_config + "); closest: ";
  std::snprintf(text, sizeof text, "%s (%+.1f%% throughput", verdict.best_config.c_str(),
                verdict.best_throughput_change_pct);
  line += text;
  if (verdict.best_accuracy_change_points) {
    std::snprintf(text, sizeof text, ", %+.2f accuracy points",
                  *verdict.best_accuracy_change_points);
    line += text;
  }
  line += ")";
  if (!verdict.significant) {
    line += "; cannot judge significance with " + std::to_string(verdict.repeats) +
            (verdict.repeats == 1 ? " repeat" : " repeats") + ": needs ≥ " +
            std::to_string(verdict.repeats_needed.value_or(0)) + " repeats";
  } else if (!*verdict.significant) {
    std::snprintf(text, sizeof text,
                  "; within noise (Welch's t = %.2f, %d repeats): needs ≥ %d repeats",
                  verdict.welch_t.value_or(0), verdict.repeats, verdict.repeats_needed.value_or(0));
    line += text;
  } else {
    std::snprintf(text, sizeof text, "; significant at 5%% (Welch's t = %.2f, %d repeats)",
                  verdict.welch_t.value_or(0), verdict.repeats);
    line += text;
  }
  if (verdict.target_met && report.target_gain_pct) {
    std::snprintf(text, sizeof text, "; target ≥ %.0f%% gain: %s", *report.target_gain_pct,
                  *verdict.target_met ? "met" : "NOT met");
    line += text;
  }
  return line;
}

std::string settings_line(const Report& report) {
  char text[200];
  std::snprintf(text, sizeof text,
                "bottleneck: input-bound when data wait > %.0f%% of a step, communication-bound "
                "when exposed all-reduce > %.0f%%",
                report.thresholds.input_bound_pct, report.thresholds.comm_bound_pct);
  return text;
}

// `text` broken at spaces into lines of at most `width` columns (UTF-8 continuation bytes
// take none), the first after `first`, the rest after `rest`; a word longer than a line
// stays whole.
std::string wrapped(const std::string& text, const std::string& first, const std::string& rest,
                    size_t width) {
  auto columns = [](const std::string& part) {
    size_t count = 0;
    for (char byte : part) count += (byte & 0xC0) != 0x80;
    return count;
  };
  std::string out = first, word;
  size_t used = columns(first), line_start = used;
  std::istringstream words(text);
  while (words >> word) {
    const size_t length = columns(word);
    if (used > line_start && used + 1 + length > width) {
      out += "\n" + rest;
      used = line_start = columns(rest);
    } else if (used > line_start) {
      out += ' ';
      ++used;
    }
    out += word;
    used += length;
  }
  return out + "\n";
}

// What a text format shows of a table: its summary where it grows past kFullRows members
// and `summarise`, else every row.
Table shown(const ReportTable& table, bool summarise) {
  if (summarise && table.members && needs_summary(*table.members)) {
    return summarised_members(*table.members);
  }
  return table.table;
}

// The terminal (`terminal`: summarised, essential columns, lines within 120 columns),
// markdown (summarised) or every row (CSV, --wide).
std::string render_tables(const Report& report, TableFormat format, bool terminal = false) {
  std::string out;
  const auto tables = report_tables(report);
  const bool summarise = terminal || format == TableFormat::kMarkdown;
  for (size_t i = 0; i < tables.size(); ++i) {
    Table table = shown(tables[i], summarise);
    if (terminal) table = essential_columns(table);
    if (format == TableFormat::kCsv) out += "# " + table.title + "\n";
    out += (i ? "\n" : "") + render_table(table, format);
  }
  if (format == TableFormat::kCsv) return out;
  const std::string bullet = format == TableFormat::kMarkdown ? "- " : "  ";
  // The terminal's lines stay within the tables' 120 columns.
  auto line = [terminal, format](const std::string& text, const std::string& first,
                                 const std::string& rest) {
    if (format == TableFormat::kMarkdown) return first + markdown_escape(text) + "\n";
    return terminal ? wrapped(text, first, rest, 120) : first + text + "\n";
  };
  out += "\n";
  if (const std::string verdict = verdict_line(report); !verdict.empty()) {
    out += line(verdict, "", "  ");
  }
  out += (format == TableFormat::kMarkdown ? markdown_escape(settings_line(report))
                                           : settings_line(report)) +
         "\n";
  if (!report.warnings.empty()) {
    out += format == TableFormat::kMarkdown ? "\n**Warnings**\n\n" : "warnings:\n";
    for (const auto& warning : report.warnings) out += line(warning, bullet, bullet + "  ");
  }
  return out;
}

// A table of the page; one summarised past kFullRows members also has a plot of each large
// group and every row in a <details> below.
std::string html_table(const ReportTable& table) {
  if (!table.members || !needs_summary(*table.members)) {
    return render_table(table.table, TableFormat::kHtml);
  }
  const MemberTable& members = *table.members;
  std::string out = render_table(summarised_members(members), TableFormat::kHtml);
  if (members.plotted_figure) {
    for (const MemberGroup& group : members.groups) {
      if (group.members.size() <= kFullRows) continue;
      out += "<div class=\"members\">" + member_plot_svg(members, group, *members.plotted_figure) +
             "</div>\n";
    }
  }
  Table every_row = table.table;
  every_row.title.clear();
  return out + "<details><summary>Every one of the " + members.noun + " (" +
         std::to_string(every_row.rows.size()) + " rows)</summary>\n" +
         render_table(every_row, TableFormat::kHtml) + "</details>\n";
}

std::string render_html(const Report& report, const std::vector<std::string>& svg_paths) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(report.study) +
      " — scalestudy report</title>\n<style>body{font-family:sans-serif;margin:2em;}"
      "table{border-collapse:collapse;margin-bottom:1.5em;}th,td{border:1px solid #ccc;"
      "padding:4px 8px;}th{background:#eee;}td.n{text-align:right;font-variant-numeric:"
      "tabular-nums;}.plots svg{max-width:48%;height:auto;margin:0.5em;}"
      ".members svg{max-width:100%;height:auto;}details{margin-bottom:1.5em;}"
      "summary{cursor:pointer;}</style></head><body>\n"
      "<h1>" +
      html_escape(report.study) + " (" + html_escape(report.kind) + ")</h1>\n";
  for (const auto& table : report_tables(report)) out += html_table(table);
  out += "<p>" + html_escape(settings_line(report)) + "</p>\n";
  if (const std::string verdict = verdict_line(report); !verdict.empty()) {
    out += "<p><b>" + html_escape(verdict) + "</b></p>\n";
  }
  if (!report.warnings.empty()) {
    out += "<h2>Warnings</h2>\n<ul>\n";
    for (const auto& warning : report.warnings) out += "<li>" + html_escape(warning) + "</li>\n";
    out += "</ul>\n";
  }
  if (!svg_paths.empty()) out += "<h2>Plots</h2>\n<div class=\"plots\">\n";
  for (const auto& path : svg_paths) {
    std::ifstream file(path);
    std::stringstream svg;
    svg << file.rdbuf();
    std::string text = svg.str();
    // Inline the <svg> element itself, without the XML prologue and DOCTYPE.
    if (const auto start = text.find("<svg"); start != std::string::npos) out += text.substr(start);
  }
  if (!svg_paths.empty()) out += "</div>\n";
  return out + "</body></html>\n";
}

}  // namespace

Result<ReportFormat> parse_report_format(const std::string& name) {
  if (name == "table") return ReportFormat::kTable;
  if (name == "md" || name == "markdown") return ReportFormat::kMarkdown;
  if (name == "csv") return ReportFormat::kCsv;
  if (name == "json") return ReportFormat::kJson;
  if (name == "html") return ReportFormat::kHtml;
  return Status::error("--format: expected table, md, csv, json or html, got '" + name + "'");
}

std::string render_report(const Report& report, ReportFormat format,
                          const std::vector<std::string>& svg_paths) {
  switch (format) {
    case ReportFormat::kMarkdown:
      return render_tables(report, TableFormat::kMarkdown);
    case ReportFormat::kCsv:
      return render_tables(report, TableFormat::kCsv);
    case ReportFormat::kJson:
      return render_report_json(report);
    case ReportFormat::kHtml:
      return render_html(report, svg_paths);
    case ReportFormat::kWideTable:
      return render_tables(report, TableFormat::kText);
    case ReportFormat::kTable:
      break;
  }
  return render_tables(report, TableFormat::kText, true);
}

}  // namespace scalestudy::results
