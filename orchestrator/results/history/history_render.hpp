// `scalestudy history` printed: an aligned table, markdown, CSV (one row per point and
// campaign, the change points marked), JSON (schema scalestudy.history/1: each point's
// series and its change_points, each naming the campaign that starts the new segment) and a
// self-contained HTML page (each point's series drawn as SVG, value against campaign with
// 95% CI bars and the change points marked; every user string escaped). Pure.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/results/history/study_history.hpp"

namespace scalestudy::results {

enum class HistoryFormat { kTable, kMarkdown, kCsv, kJson, kHtml };
Result<HistoryFormat> parse_history_format(const std::string& text);

std::string render_history(const StudyHistory& history, HistoryFormat format,
                           const std::vector<OpenRegression>& open, double threshold_pct);

}  // namespace scalestudy::results
