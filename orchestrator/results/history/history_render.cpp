#include "orchestrator/results/history/history_render.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "orchestrator/results/report/text_table.hpp"

namespace scalestudy::results {
namespace {

std::string percent(double fraction) {
  return format_number(fraction * 100, "%+.1f%%");
}

// The change that starts at entry `entry` of `series`, when one does.
const HistoryChange* change_at(const HistorySeries& series, size_t entry) {
  for (const HistoryChange& change : series.changes) {
    if (change.entry == entry) return &change;
  }
  return nullptr;
}

std::string describe_differences(const HistoryChange& change, size_t most) {
  std::string text;
  for (size_t i = 0; i < change.differences.size() && i < most; ++i) {
    const ProvenanceDifference& difference = change.differences[i];
    text += (i == 0 ? "" : "; ") + difference.key + " " + joined_values(difference.a) + " -> " +
            joined_values(difference.b);
  }
  if (change.differences.size() > most) {
    text += "; " + std::to_string(change.differences.size() - most) + " more";
  }
  return text.empty() ? "nothing recorded differs" : text;
}

std::string change_cell(const HistoryChange* change) {
  if (change == nullptr) return "";
  return std::string(change->slower ? "slower " : "faster ") +
         percent(change->stats.forward_change()) +
         " (p=" + format_number(change->stats.pvalue, "%.2g") + ")";
}

Table history_table(const StudyHistory& history) {
  Table table;
  table.title = "History of " + history.study + ": " + to_string(history.metric) + " over " +
                std::to_string(history.campaigns.size()) + " campaigns";
  table.headers = {"point", "system", "campaign", "date", "commit", "value", "95% CI ±", "change"};
  for (const HistorySeries& series : history.series) {
    for (size_t i = 0; i < series.entries.size(); ++i) {
      const HistoryEntry& entry = series.entries[i];
      const CampaignInfo& campaign = history.campaigns[entry.campaign];
      table.rows.push_back({series.point, series.system, campaign.name,
                            campaign.created_at.substr(0, 10), entry.commit.substr(0, 12),
                            format_number(entry.value),
                            entry.ci95_half_width ? format_number(*entry.ci95_half_width) : "-",
                            change_cell(change_at(series, i))});
    }
  }
  return table;
}

// Each line of `text` escaped for markdown, the lines kept.
std::string markdown_lines(const std::string& text) {
  std::string out;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    out += markdown_escape(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out + markdown_escape(text.substr(start));
}

// The change points and the open regressions, one line each.
std::string change_lines(const StudyHistory& history, const std::vector<OpenRegression>& open,
                         double threshold_pct) {
  std::string text;
  for (const HistorySeries& series : history.series) {
    for (const HistoryChange& change : series.changes) {
      text +=
          "change point: " + series.point + (series.system.empty() ? "" : " on " + series.system) +
          " from campaign " + history.campaigns[series.entries[change.entry].campaign].name + ": " +
          format_number(change.stats.mean_before) + " -> " +
          format_number(change.stats.mean_after) + " (" + percent(change.stats.forward_change()) +
          ", p=" + format_number(change.stats.pvalue, "%.2g") +
          "); differs: " + describe_differences(change, 3) + "\n";
    }
  }
  if (open.empty()) {
    text += "no open regression (newest segment slower by more than " +
            format_number(threshold_pct, "%g") + "%)\n";
  }
  for (const OpenRegression& regression : open) {
    const HistorySeries& series = history.series[regression.series];
    text +=
        "open regression: " + series.point + (series.system.empty() ? "" : " on " + series.system) +
        " " + format_number(regression.change_pct, "%+.1f") + "% since campaign " +
        history.campaigns[series.entries[series.changes[regression.change].entry].campaign].name +
        " (threshold " + format_number(threshold_pct, "%g") + "%)\n";
  }
  return text;
}

nlohmann::json history_json(const StudyHistory& history, const std::vector<OpenRegression>& open,
                            double threshold_pct) {
  nlohmann::json campaigns = nlohmann::json::array();
  for (const CampaignInfo& campaign : history.campaigns) {
    campaigns.push_back({{"name", campaign.name}, {"created_at", campaign.created_at}});
  }
  nlohmann::json points = nlohmann::json::array();
  for (const HistorySeries& series : history.series) {
    nlohmann::json values = nlohmann::json::array();
    for (const HistoryEntry& entry : series.entries) {
      values.push_back(
          {{"campaign", history.campaigns[entry.campaign].name},
           {"created_at", history.campaigns[entry.campaign].created_at},
           {"commit", entry.commit},
           {"value", entry.value},
           {"ci95_half_width",
            entry.ci95_half_width ? nlohmann::json(*entry.ci95_half_width) : nlohmann::json()},
           {"repeats", entry.repeats}});
    }
    nlohmann::json changes = nlohmann::json::array();
    for (const HistoryChange& change : series.changes) {
      nlohmann::json differences = nlohmann::json::array();
      for (const ProvenanceDifference& difference : change.differences) {
        differences.push_back({{"kind", to_string(difference.kind)},
                               {"key", difference.key},
                               {"before", difference.a},
                               {"after", difference.b}});
      }
      changes.push_back(
          {{"campaign", history.campaigns[series.entries[change.entry].campaign].name},
           {"index", change.entry},
           {"mean_before", change.stats.mean_before},
           {"mean_after", change.stats.mean_after},
           {"change_pct", change.stats.forward_change() * 100},
           {"pvalue", change.stats.pvalue},
           {"slower", change.slower},
           {"differences", std::move(differences)}});
    }
    points.push_back({{"point", series.point},
                      {"system", series.system},
                      {"series", std::move(values)},
                      {"change_points", std::move(changes)}});
  }
  nlohmann::json regressions = nlohmann::json::array();
  for (const OpenRegression& regression : open) {
    const HistorySeries& series = history.series[regression.series];
    regressions.push_back(
        {{"point", series.point},
         {"system", series.system},
         {"campaign",
          history.campaigns[series.entries[series.changes[regression.change].entry].campaign].name},
         {"reference_level", regression.reference_level},
         {"newest_level", regression.newest_level},
         {"change_pct", regression.change_pct}});
  }
  return {{"schema", "scalestudy.history/1"},
          {"study", history.study},
          {"metric", to_string(history.metric)},
          {"detector",
           {{"method", "e-divisive means, Student's t (Hunter/Otava)"},
            {"window_len", history.detector.window_len},
            {"max_pvalue", history.detector.max_pvalue},
            {"min_magnitude", history.detector.min_magnitude}}},
          {"threshold_pct", threshold_pct},
          {"campaigns", std::move(campaigns)},
          {"points", std::move(points)},
          {"open_regressions", std::move(regressions)},
          {"warnings", history.warnings}};
}

// One series as SVG: value against campaign, CI bars, change points as dashed lines.
std::string series_svg(const StudyHistory& history, const HistorySeries& series) {
  constexpr double kWidth = 640, kHeight = 240, kLeft = 70, kRight = 20, kTop = 20, kBottom = 50;
  double low = series.entries.front().value, high = low;
  for (const HistoryEntry& entry : series.entries) {
    const double ci = entry.ci95_half_width.value_or(0);
    low = std::min(low, entry.value - ci);
    high = std::max(high, entry.value + ci);
  }
  const double pad = std::max((high - low) * 0.1, std::fabs(high) * 0.01 + 1e-12);
  low -= pad;
  high += pad;
  const size_t count = series.entries.size();
  auto x_of = [&](size_t i) {
    return kLeft +
           (count == 1 ? 0.5 : static_cast<double>(i) / (count - 1)) * (kWidth - kLeft - kRight);
  };
  auto y_of = [&](double value) {
    return kTop + (high - value) / (high - low) * (kHeight - kTop - kBottom);
  };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    format_number(kWidth, "%g") + "\" height=\"" + format_number(kHeight, "%g") +
                    "\" role=\"img\" aria-label=\"" + html_escape(series.point) + "\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<line x1=\"" + format_number(kLeft, "%g") + "\" y1=\"" +
         format_number(kHeight - kBottom, "%g") + "\" x2=\"" +
         format_number(kWidth - kRight, "%g") + "\" y2=\"" +
         format_number(kHeight - kBottom, "%g") + "\" stroke=\"#444\"/>\n";
  for (double tick : {low + pad, high - pad}) {
    svg += "<text x=\"" + format_number(kLeft - 6, "%g") + "\" y=\"" +
           format_number(y_of(tick) + 4, "%.1f") + "\" font-size=\"11\" text-anchor=\"end\">" +
           format_number(tick) + "</text>\n";
  }
  for (const HistoryChange& change : series.changes) {
    const double x = (x_of(change.entry - 1) + x_of(change.entry)) / 2;
    svg += "<line class=\"change-point\" x1=\"" + format_number(x, "%.1f") + "\" y1=\"" +
           format_number(kTop, "%g") + "\" x2=\"" + format_number(x, "%.1f") + "\" y2=\"" +
           format_number(kHeight - kBottom, "%g") +
           "\" stroke=\"#c00\" stroke-dasharray=\"5,3\"/>\n";
  }
  std::string path;
  for (size_t i = 0; i < count; ++i) {
    const HistoryEntry& entry = series.entries[i];
    const double x = x_of(i), y = y_of(entry.value);
    path += (i == 0 ? "M" : " L") + format_number(x, "%.1f") + "," + format_number(y, "%.1f");
    if (entry.ci95_half_width) {
      svg += "<line x1=\"" + format_number(x, "%.1f") + "\" y1=\"" +
             format_number(y_of(entry.value - *entry.ci95_half_width), "%.1f") + "\" x2=\"" +
             format_number(x, "%.1f") + "\" y2=\"" +
             format_number(y_of(entry.value + *entry.ci95_half_width), "%.1f") +
             "\" stroke=\"#555\"/>\n";
    }
    svg += "<circle cx=\"" + format_number(x, "%.1f") + "\" cy=\"" + format_number(y, "%.1f") +
           "\" r=\"4\" fill=\"#1f5fa8\"><title>" +
           html_escape(history.campaigns[entry.campaign].name + ": " + format_number(entry.value)) +
           "</title></circle>\n";
    svg += "<text x=\"" + format_number(x, "%.1f") + "\" y=\"" +
           format_number(kHeight - kBottom + 16, "%g") +
           "\" font-size=\"10\" text-anchor=\"middle\">" +
           html_escape(history.campaigns[entry.campaign].name.substr(0, 14)) + "</text>\n";
  }
  svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"2\"/>\n";
  return svg + "</svg>\n";
}

std::string history_html(const StudyHistory& history, const std::vector<OpenRegression>& open,
                         double threshold_pct) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>History of " +
      html_escape(history.study) +
      "</title><style>body{font-family:sans-serif;margin:2em;max-width:70em}"
      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
      ".regression{color:#c00}</style></head><body>\n<h1>History of " +
      html_escape(history.study) + "</h1>\n<p>" + html_escape(to_string(history.metric)) +
      " over " + std::to_string(history.campaigns.size()) +
      " campaigns; change points by E-Divisive means with Student's t (window " +
      std::to_string(history.detector.window_len) + ", p &lt; " +
      html_escape(format_number(history.detector.max_pvalue, "%g")) + ").</p>\n";
  for (const OpenRegression& regression : open) {
    html += "<p class=\"regression\">open regression: " +
            html_escape(history.series[regression.series].point +
                        (history.series[regression.series].system.empty()
                             ? ""
                             : " on " + history.series[regression.series].system)) +
            " " + html_escape(format_number(regression.change_pct, "%+.1f")) + "% (threshold " +
            html_escape(format_number(threshold_pct, "%g")) + "%)</p>\n";
  }
  for (const HistorySeries& series : history.series) {
    html += "<h2>" + html_escape(series.point) +
            (series.system.empty() ? "" : " on " + html_escape(series.system)) + "</h2>\n";
    html += series_svg(history, series);
    for (const HistoryChange& change : series.changes) {
      html += "<p>change point from campaign " +
              html_escape(history.campaigns[series.entries[change.entry].campaign].name) + ": " +
              html_escape(change_cell(&change)) +
              "; differs: " + html_escape(describe_differences(change, 5)) + "</p>\n";
    }
  }
  html += render_table(history_table(history), TableFormat::kHtml);
  return html + "</body></html>\n";
}

}  // namespace

Result<HistoryFormat> parse_history_format(const std::string& text) {
  if (text == "table") return HistoryFormat::kTable;
  if (text == "md") return HistoryFormat::kMarkdown;
  if (text == "csv") return HistoryFormat::kCsv;
  if (text == "json") return HistoryFormat::kJson;
  if (text == "html") return HistoryFormat::kHtml;
  return Status::error("--format is table, md, csv, json or html, not '" + text + "'");
}

std::string render_history(const StudyHistory& history, HistoryFormat format,
                           const std::vector<OpenRegression>& open, double threshold_pct) {
  switch (format) {
    case HistoryFormat::kTable:
      return render_table(history_table(history), TableFormat::kText) + "\n" +
             change_lines(history, open, threshold_pct);
    case HistoryFormat::kMarkdown:
      return render_table(history_table(history), TableFormat::kMarkdown) + "\n" +
             markdown_lines(change_lines(history, open, threshold_pct));
    case HistoryFormat::kCsv:
      return render_table(history_table(history), TableFormat::kCsv);
    case HistoryFormat::kJson:
      return history_json(history, open, threshold_pct).dump(2) + "\n";
    case HistoryFormat::kHtml:
      return history_html(history, open, threshold_pct);
  }
  return "";
}

}  // namespace scalestudy::results
