#include "orchestrator/results/compare/compare_render.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/significance_json.hpp"

namespace scalestudy::results {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double value, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string optional_fixed(const std::optional<double>& value, int decimals, double scale = 1) {
  return value ? fixed(*value * scale, decimals) : "-";
}

std::string verdict_text(const ComparedPoint& point) {
  std::string text = to_string(point.verdict);
  const int repeats = std::min(point.throughput_a.count, point.throughput_b.count);
  const std::string needed = std::to_string(point.repeats_needed.value_or(0));
  if (point.verdict == CompareVerdict::kCannotJudge) {
    text += " (" + std::to_string(repeats) + (repeats == 1 ? " repeat" : " repeats") +
            "; needs ≥ " + needed + ")";
  } else if (point.verdict == CompareVerdict::kNoSignificantChange) {
    text += *point.comparison.significant ? " (below threshold)"
                                          : " (within noise; ≥ " + needed + " repeats resolve it)";
  }
  return text;
}

std::string summary_line(const Comparison& comparison) {
  int slower = 0, faster = 0, unjudged = 0;
  for (const auto& point : comparison.points) {
    slower += point.verdict == CompareVerdict::kSlower;
    faster += point.verdict == CompareVerdict::kFaster;
    unjudged += point.verdict == CompareVerdict::kCannotJudge;
  }
  std::string line = comparison.label_b + " vs " + comparison.label_a + " (threshold " +
                     fixed(comparison.threshold_pct, 1) + "%, Welch's t, 95%): ";
  if (slower > 0) return line + "REGRESSION at " + std::to_string(slower) + " point(s)";
  if (faster > 0) return line + "faster at " + std::to_string(faster) + " point(s)";
  if (unjudged > 0)
    return line + "cannot judge significance at " + std::to_string(unjudged) +
           " point(s): too few repeats";
  return line + "no significant change";
}

// The differing keys, most likely cause first; the first few, then how many more.
std::string differing_keys(const ComparedPoint& point) {
  constexpr size_t kShown = 4;
  if (point.differences.empty()) return "-";
  std::string text;
  for (size_t i = 0; i < point.differences.size() && i < kShown; ++i) {
    text += (i ? ", " : "") + point.differences[i].key;
  }
  if (point.differences.size() > kShown) {
    text += " (+" + std::to_string(point.differences.size() - kShown) + ")";
  }
  return text;
}

// One row per difference of every point: what each side recorded.
Table differences_table(const Comparison& comparison) {
  Table table;
  table.title =
      "What differs, most likely cause first (build, versions, parameters, "
      "environment, runtime, hosts)";
  table.headers = {"config", "ranks", "nodes", "kind", "key", "A", "B"};
  for (const auto& point : comparison.points) {
    for (const auto& difference : point.differences) {
      table.rows.push_back({point.config_label, std::to_string(point.world_size),
                            std::to_string(point.nodes), to_string(difference.kind), difference.key,
                            joined_values(difference.a), joined_values(difference.b)});
    }
  }
  return table;
}

Json differences_json(const ComparedPoint& point) {
  Json differences = Json::array();
  for (const auto& difference : point.differences) {
    differences.push_back(Json{{"kind", to_string(difference.kind)},
                               {"key", difference.key},
                               {"a", difference.a},
                               {"b", difference.b}});
  }
  return differences;
}

Json summary_json(const Summary& summary) {
  return Json{{"count", summary.count},
              {"mean", summary.mean},
              {"median", summary.median},
              {"stddev", summary.stddev},
              {"cv_pct", summary.cv_pct}};
}

Json optional_json(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::string render_json(const Comparison& comparison) {
  Json out{{"schema", kCompareSchema},
           {"a", comparison.label_a},
           {"b", comparison.label_b},
           {"threshold_pct", comparison.threshold_pct},
           {"regressed", comparison.regressed()},
           {"points", Json::array()},
           {"warnings", comparison.warnings}};
  for (const auto& point : comparison.points) {
    Json json{{"config", point.config_label},
              {"world_size", point.world_size},
              {"nodes", point.nodes},
              {"throughput_a", summary_json(point.throughput_a)},
              {"throughput_b", summary_json(point.throughput_b)},
              {"efficiency_a", optional_json(point.efficiency_a)},
              {"efficiency_b", optional_json(point.efficiency_b)}};
    add_mean_comparison(json, point.comparison);
    json["verdict"] = to_string(point.verdict);
    json["repeats_needed"] = point.repeats_needed ? Json(*point.repeats_needed) : Json(nullptr);
    json["differences"] = differences_json(point);
    out["points"].push_back(std::move(json));
  }
  return out.dump(2) + "\n";
}

}  // namespace

Table comparison_table(const Comparison& comparison) {
  Table table;
  table.title = "Comparison: " + comparison.label_b + " (B) vs " + comparison.label_a + " (A)";
  table.headers = {"config",        "ranks",     "nodes",   "A [samples/s]",
                   "B [samples/s]", "B/A",       "95% CI",  "Welch t (df)",
                   "A eff [%]",     "B eff [%]", "verdict", "differs (likely cause first)"};
  for (const auto& point : comparison.points) {
    const MeanComparison& stats = point.comparison;
    std::string interval = "-";
    if (stats.ratio_ci95_low) {
      interval = fixed(*stats.ratio_ci95_low, 3) + "–" + fixed(*stats.ratio_ci95_high, 3);
    }
    std::string t_text = "-";
    if (stats.welch_t) t_text = fixed(*stats.welch_t, 2) + " (" + fixed(*stats.welch_df, 1) + ")";
    table.rows.push_back(
        {point.config_label, std::to_string(point.world_size), std::to_string(point.nodes),
         fixed(point.throughput_a.mean, 1), fixed(point.throughput_b.mean, 1),
         fixed(stats.ratio, 3), interval, t_text, optional_fixed(point.efficiency_a, 1, 100),
         optional_fixed(point.efficiency_b, 1, 100), verdict_text(point), differing_keys(point)});
  }
  return table;
}

std::string render_comparison(const Comparison& comparison, ReportFormat format) {
  if (format == ReportFormat::kJson) return render_json(comparison);
  const Table table = comparison_table(comparison);
  const Table differences = differences_table(comparison);
  if (format == ReportFormat::kHtml) {
    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
                      html_escape(table.title) + "</title></head><body>\n" +
                      render_table(table, TableFormat::kHtml) + "<p><b>" +
                      html_escape(summary_line(comparison)) + "</b></p>\n";
    if (!differences.rows.empty()) out += render_table(differences, TableFormat::kHtml);
    for (const auto& warning : comparison.warnings) {
      out += "<p>warning: " + html_escape(warning) + "</p>\n";
    }
    return out + "</body></html>\n";
  }
  const TableFormat table_format = format == ReportFormat::kMarkdown ? TableFormat::kMarkdown
                                   : format == ReportFormat::kCsv    ? TableFormat::kCsv
                                                                     : TableFormat::kText;
  std::string out = render_table(table, table_format);
  if (format == ReportFormat::kCsv) return out;
  auto shown = [&](const std::string& text) {
    return format == ReportFormat::kMarkdown ? markdown_escape(text) : text;
  };
  out += "\n" + shown(summary_line(comparison)) + "\n";
  if (!differences.rows.empty()) out += "\n" + render_table(differences, table_format);
  for (const auto& warning : comparison.warnings) out += "warning: " + shown(warning) + "\n";
  return out;
}

}  // namespace scalestudy::results
