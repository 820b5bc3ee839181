#include "orchestrator/results/report/report_time_to_target.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "orchestrator/results/analysis/significance.hpp"

namespace scalestudy::results {
namespace {

std::optional<TimeToTarget> time_to_target(const PointWork& work) {
  std::optional<TimeToTarget> result;
  std::vector<double> times, epochs;
  for (const RunMeasurement* run : work.measured) {
    if (!run->target_value) continue;
    if (!result) result = TimeToTarget{run->target_metric, *run->target_value};
    ++result->runs;
    if (!run->time_to_target_s || !run->time_to_target_epoch) continue;
    ++result->reached_runs;
    times.push_back(*run->time_to_target_s);
    epochs.push_back(*run->time_to_target_epoch);
  }
  if (result && !times.empty()) {
    result->time_s = median(times);
    result->epoch = median(epochs);
  }
  return result;
}

// The metric the accuracy check compares: the target's, else validation accuracy.
const std::vector<std::optional<double>>& per_epoch(const RunMeasurement& run,
                                                    const std::string& metric) {
  return metric == "val_loss" ? run.val_loss_per_epoch : run.val_acc_per_epoch;
}

// The last epoch every run recorded the metric for (0: none).
int common_epochs(const std::vector<const RunMeasurement*>& runs, const std::string& metric) {
  int epochs = -1;
  for (const RunMeasurement* run : runs) {
    const auto& values = per_epoch(*run, metric);
    int recorded = 0;
    while (recorded < static_cast<int>(values.size()) && values[recorded]) ++recorded;
    epochs = epochs < 0 ? recorded : std::min(epochs, recorded);
  }
  return std::max(epochs, 0);
}

Summary at_epoch(const std::vector<const RunMeasurement*>& runs, const std::string& metric,
                 int epoch) {
  std::vector<double> values;
  for (const RunMeasurement* run : runs) values.push_back(*per_epoch(*run, metric)[epoch - 1]);
  return summarize(values);
}

std::optional<AccuracyVersusBaseline> versus_baseline(const PointWork& work, const PointWork& base,
                                                      const std::string& metric) {
  const int epoch =
      std::min(common_epochs(work.measured, metric), common_epochs(base.measured, metric));
  if (epoch == 0) return std::nullopt;
  const Summary here = at_epoch(work.measured, metric, epoch);
  const Summary there = at_epoch(base.measured, metric, epoch);
  AccuracyVersusBaseline check;
  check.metric = metric;
  check.epoch = epoch;
  check.repeats = std::min(here.count, there.count);
  const bool accuracy = metric == "val_accuracy";
  check.change = (here.mean - there.mean) * (accuracy ? 100 : 1);
  check.identical_repeats = here.count >= kMinRepeatsForTest && there.count >= kMinRepeatsForTest &&
                            here.stddev == 0 && there.stddev == 0;
  const MeanComparison comparison = compare_means(there, here);
  if (comparison.significant && !check.identical_repeats) {
    check.worse = *comparison.significant && (accuracy ? check.change < 0 : check.change > 0);
  }
  return check;
}

void warn(const ReportPoint& point, Report& report) {
  if (point.to_target && point.to_target->reached_runs < point.to_target->runs) {
    report.warnings.push_back(
        point_name(point) + ": " +
        std::to_string(point.to_target->runs - point.to_target->reached_runs) + " of " +
        std::to_string(point.to_target->runs) + " runs never reached the target " +
        point.to_target->metric);
  }
  const auto& check = point.accuracy_vs_baseline;
  if (check && check->worse && *check->worse) {
    char text[200];
    std::snprintf(text, sizeof text,
                  ": %s after epoch %d is worse than the baseline's beyond the repeats' noise "
                  "(%+.3g%s, Welch's t, 5%%)",
                  check->metric.c_str(), check->epoch, check->change,
                  check->metric == "val_accuracy" ? " points" : "");
    report.warnings.push_back(point_name(point) + text);
  }
}

}  // namespace

void apply_time_to_target(std::vector<PointWork>& points, Report& report) {
  std::map<std::string, const PointWork*> base_by_series;
  for (auto& work : points) {
    work.point.to_target = time_to_target(work);
    if (work.point.is_baseline) base_by_series[work.point.config_label] = &work;
  }
  for (auto& work : points) {
    ReportPoint& point = work.point;
    auto base = base_by_series.find(point.config_label);
    if (point.run_ids.empty() || base == base_by_series.end()) continue;
    const ReportPoint& base_point = base->second->point;
    const std::string metric = point.to_target ? point.to_target->metric : "val_accuracy";
    if (point.to_target && point.to_target->time_s && base_point.to_target &&
        base_point.to_target->time_s && *point.to_target->time_s > 0) {
      point.to_target->speedup = *base_point.to_target->time_s / *point.to_target->time_s;
      point.to_target->efficiency =
          *point.to_target->speedup * base_point.world_size / point.world_size;
    }
    if (!point.is_baseline)
      point.accuracy_vs_baseline = versus_baseline(work, *base->second, metric);
    warn(point, report);
  }
}

}  // namespace scalestudy::results
