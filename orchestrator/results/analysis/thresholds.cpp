#include "orchestrator/results/analysis/thresholds.hpp"

#include <algorithm>
#include <cstdio>

namespace scalestudy::results {

void mark_threshold_misses(Report& report) {
  if (!report.efficiency_threshold_pct) return;
  for (auto& point : report.points) {
    if (!point.efficiency) continue;
    const double efficiency_pct = *point.efficiency * 100;
    point.below_efficiency_threshold = efficiency_pct < *report.efficiency_threshold_pct;
    if (!point.below_efficiency_threshold) continue;
    char text[200];
    std::snprintf(text, sizeof text, "N=%d%s%s: efficiency %.1f%% is below the threshold %.1f%%",
                  point.world_size, point.config_label == "default" ? "" : " ",
                  point.config_label == "default" ? "" : ("(" + point.config_label + ")").c_str(),
                  efficiency_pct, *report.efficiency_threshold_pct);
    report.warnings.push_back(text);
  }
}

int count_threshold_misses(const Report& report) {
  return static_cast<int>(
      std::count_if(report.points.begin(), report.points.end(),
                    [](const ReportPoint& point) { return point.below_efficiency_threshold; }));
}

}  // namespace scalestudy::results
