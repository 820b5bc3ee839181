#include "orchestrator/results/report/member_plot.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace scalestudy::results {
namespace {

constexpr double kWidth = 900, kHeight = 260, kLeft = 80, kRight = 20, kTop = 30, kBottom = 40;

std::string number(double value) {
  return format_number(value, "%.1f");
}

std::string text(double x, double y, const std::string& anchor, const std::string& content,
                 const std::string& fill = "#222") {
  return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" font-size=\"11\" text-anchor=\"" +
         anchor + "\" fill=\"" + fill + "\">" + html_escape(content) + "</text>\n";
}

}  // namespace

std::string member_plot_svg(const MemberTable& table, const MemberGroup& group, size_t figure) {
  std::vector<double> values;
  for (const Member& member : group.members) {
    if (const auto value = counted(member.figures[figure])) values.push_back(*value);
  }
  if (values.empty()) return "";
  const FigureSpread spread = figure_spread(values);
  const MemberFigure& column = table.figures[figure];
  // The band of ordinary members, the extremes, and some room.
  const double band = kOutlierSigmas * outlier_sigma(spread);
  double low = std::min(spread.min, spread.median - band);
  double high = std::max(spread.max, spread.median + band);
  const double pad = std::max((high - low) * 0.08, std::fabs(high) * 0.01 + 1e-12);
  low -= pad;
  high += pad;
  const size_t count = group.members.size();
  auto x_of = [&](size_t i) {
    return kLeft +
           (count == 1 ? 0.5 : static_cast<double>(i) / (count - 1)) * (kWidth - kLeft - kRight);
  };
  auto y_of = [&](double value) {
    return kTop + (high - value) / (high - low) * (kHeight - kTop - kBottom);
  };
  std::string group_name;
  for (size_t c = 0; c < group.cells.size(); ++c) {
    group_name += (c ? ", " : "") + table.group_headers[c] + " " + group.cells[c];
  }
  const std::string title = column.header + " per " + table.name_headers.front() +
                            (group_name.empty() ? "" : " (" + group_name + ")");
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(kWidth) +
                    "\" height=\"" + number(kHeight) + "\" role=\"img\" aria-label=\"" +
                    html_escape(title) + "\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += text(kLeft, 18, "start", title);
  const double band_top = y_of(spread.median + band);
  const double band_bottom = y_of(spread.median - band);
  svg += "<rect x=\"" + number(kLeft) + "\" y=\"" + number(band_top) + "\" width=\"" +
         number(kWidth - kLeft - kRight) + "\" height=\"" +
         number(std::max(band_bottom - band_top, 0.5)) + "\" fill=\"#e8eef7\"/>\n";
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(y_of(spread.median)) + "\" x2=\"" +
         number(kWidth - kRight) + "\" y2=\"" + number(y_of(spread.median)) +
         "\" stroke=\"#888\" stroke-dasharray=\"4,3\"/>\n";
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(kHeight - kBottom) + "\" x2=\"" +
         number(kWidth - kRight) + "\" y2=\"" + number(kHeight - kBottom) +
         "\" stroke=\"#444\"/>\n";
  // Ticks at the median and the extremes, each clear of the ones drawn.
  std::vector<double> tick_ys;
  for (double tick : {spread.median, spread.min, spread.max}) {
    const double y = y_of(tick);
    if (std::any_of(tick_ys.begin(), tick_ys.end(),
                    [y](double at) { return std::fabs(at - y) < 12; })) {
      continue;
    }
    tick_ys.push_back(y);
    svg += text(kLeft - 6, y + 4, "end", column.format(tick));
  }
  svg += text(kLeft, kHeight - kBottom + 16, "start", group.members.front().label);
  svg += text(kWidth - kRight, kHeight - kBottom + 16, "end", group.members.back().label);
  // A dot per member as a zero-length round-capped stroke: a path, not a thousand circles.
  std::string ordinary, outlying;
  for (size_t m = 0; m < count; ++m) {
    const auto value = counted(group.members[m].figures[figure]);
    if (!value) continue;
    (is_outlier(spread, *value) ? outlying : ordinary) +=
        "M" + number(x_of(m)) + " " + number(y_of(*value)) + "h0";
  }
  svg += "<path d=\"" + ordinary +
         "\" stroke=\"#1f5fa8\" stroke-width=\"4\" stroke-linecap=\"round\" fill=\"none\"/>\n";
  if (!outlying.empty()) {
    svg += "<path class=\"outliers\" d=\"" + outlying +
           "\" stroke=\"#c0392b\" stroke-width=\"6\" stroke-linecap=\"round\" fill=\"none\"/>\n";
  }
  // The farthest outliers' names, each clear of those written.
  std::vector<std::pair<double, double>> labelled;
  const std::vector<size_t> named = group_outliers(group, table.figures.size());
  for (size_t i = 0; i < named.size() && i < kNamedOutliers; ++i) {
    const Member& member = group.members[named[i]];
    const auto value = counted(member.figures[figure]);
    if (!value || !is_outlier(spread, *value)) continue;
    const double x = x_of(named[i]) + 6, y = y_of(*value) + 4;
    if (std::any_of(labelled.begin(), labelled.end(), [&](const auto& at) {
          return std::fabs(at.first - x) < 60 && std::fabs(at.second - y) < 12;
        })) {
      continue;
    }
    labelled.emplace_back(x, y);
    svg += text(x, y, "start", member.label, "#c0392b");
  }
  return svg + "</svg>\n";
}

}  // namespace scalestudy::results
