// Renders a Report: as tables (terminal, markdown, CSV), as the versioned JSON document
// described in docs/report-json.md, or as one self-contained HTML page with the tables
// and the SVG plots inlined. Pure functions of the Report; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/report/rank_summary.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/text_table.hpp"

namespace scalestudy::results {

// kTable: the terminal's tables, within 120 columns (essential_columns) and with the tables
// of ranks and hosts summarised past kFullRows (rank_summary.hpp); kWideTable: every column
// and every row (`report --wide`). Markdown summarises too; CSV, JSON and HTML keep every
// row (the HTML page's per-rank rows in a <details> under the summary and its plots).
enum class ReportFormat { kTable, kWideTable, kMarkdown, kCsv, kJson, kHtml };

// "table", "md" (or "markdown"), "csv", "json", "html".
Result<ReportFormat> parse_report_format(const std::string& name);

// A table of the report with every row; one that grows with ranks or hosts also keeps its
// figures as numbers (`members`), from which a summary and plots are drawn.
struct ReportTable {
  Table table;
  std::optional<MemberTable> members;
};

// The report's tables: the kind's main table, the communication model (when measured),
// memory, memory per rank (when recorded), ...; in that order.
std::vector<ReportTable> report_tables(const Report& report);

// `table` without what the terminal leaves out unless asked for every column (--wide), so
// that it fits 120 columns.
Table essential_columns(const Table& table);

// The JSON document alone (what render_report gives for ReportFormat::kJson).
std::string render_report_json(const Report& report);

// `svg_paths`: plots to inline into the HTML page (other formats ignore them).
std::string render_report(const Report& report, ReportFormat format,
                          const std::vector<std::string>& svg_paths = {});

}  // namespace scalestudy::results
