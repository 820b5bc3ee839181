// Renders a Report: as tables (terminal, markdown, CSV), as the versioned JSON document
// described in docs/report-json.md, or as one self-contained HTML page with the tables
// and the SVG plots inlined. Pure functions of the Report; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/text_table.hpp"

namespace scalestudy::results {

// kTable: the terminal's tables, within 120 columns (TableColumns::kEssential); kWideTable:
// the same with every column (`report --wide`).
enum class ReportFormat { kTable, kWideTable, kMarkdown, kCsv, kJson, kHtml };

// "table", "md" (or "markdown"), "csv", "json", "html".
Result<ReportFormat> parse_report_format(const std::string& name);

// kAll: every column (markdown, CSV, HTML and `--wide`); kEssential: what matters most, so
// the terminal report fits 120 columns.
enum class TableColumns { kAll, kEssential };

// The report's tables: the kind's main table, the communication model (when measured),
// memory, memory per rank (when recorded); in that order.
std::vector<Table> report_tables(const Report& report, TableColumns columns = TableColumns::kAll);

// The JSON document alone (what render_report gives for ReportFormat::kJson).
std::string render_report_json(const Report& report);

// `svg_paths`: plots to inline into the HTML page (other formats ignore them).
std::string render_report(const Report& report, ReportFormat format,
                          const std::vector<std::string>& svg_paths = {});

}  // namespace scalestudy::results
