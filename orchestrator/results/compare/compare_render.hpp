// Renders a Comparison in the report formats: an aligned table, markdown, CSV, JSON
// (schema scalestudy.compare/1) or an HTML page, each ending with the overall verdict.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "orchestrator/results/compare/compare.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "orchestrator/results/report/text_table.hpp"

namespace scalestudy::results {

inline constexpr const char* kCompareSchema = "scalestudy.compare/1";

Table comparison_table(const Comparison& comparison);
std::string render_comparison(const Comparison& comparison, ReportFormat format);

}  // namespace scalestudy::results
