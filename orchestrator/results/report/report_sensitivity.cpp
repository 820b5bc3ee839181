#include "orchestrator/results/report/report_sensitivity.hpp"

#include <algorithm>
#include <string>

#include "orchestrator/results/analysis/efficiency.hpp"
#include "orchestrator/results/analysis/significance.hpp"

namespace scalestudy::results {
namespace {

// Whether the best change stands out of the noise; if not, how many repeats would tell.
void judge_significance(const Summary& reference, const Summary& best,
                        SensitivityVerdict& verdict) {
  const MeanComparison comparison = compare_means(reference, best);
  verdict.repeats = std::min(reference.count, best.count);
  verdict.welch_t = comparison.welch_t;
  verdict.significant = comparison.significant;
  if (!comparison.significant) {
    verdict.repeats_needed = kMinRepeatsForTest + 1;  // no noise estimate yet
  } else if (!*comparison.significant) {
    verdict.repeats_needed =
        repeats_needed(std::max(reference.cv_pct, best.cv_pct), comparison.change_pct);
  }
}

}  // namespace

void apply_sensitivity(std::vector<PointWork>& points, Report& report) {
  // The first measured point matching the selector, else the first at the smallest scale.
  const PointWork* base = nullptr;
  const PointWork* smallest = nullptr;
  for (const auto& work : points) {
    if (work.point.run_ids.empty()) continue;
    if (!smallest || work.point.world_size < smallest->point.world_size) smallest = &work;
    if (!base && !report.baseline.empty() && matches(work.point, report.baseline, false)) {
      base = &work;
    }
  }
  if (!base) base = smallest;
  if (!base) return;
  const std::string base_label = base->point.config_label;
  SensitivityVerdict verdict;
  bool any_compared = false;
  const ReportPoint* best = nullptr;
  const ReportPoint* best_reference = nullptr;
  for (auto& work : points) {
    ReportPoint& point = work.point;
    if (point.run_ids.empty()) continue;
    // The baseline configuration at this point's scale.
    auto same_scale = std::find_if(points.begin(), points.end(), [&](const PointWork& other) {
      return other.point.config_label == base_label && other.point.world_size == point.world_size &&
             !other.point.run_ids.empty();
    });
    if (same_scale == points.end()) continue;
    const ReportPoint& reference = same_scale->point;
    point.is_baseline = &reference == &point;
    if (reference.throughput_samples_per_s.count > 0 && point.throughput_samples_per_s.count > 0) {
      point.throughput_change_pct = throughput_change_pct(reference.throughput_samples_per_s.median,
                                                          point.throughput_samples_per_s.median);
    }
    if (point.final_val_acc && reference.final_val_acc) {
      point.accuracy_change_points =
          accuracy_change_points(*reference.final_val_acc, *point.final_val_acc);
    }
    set_memory_ratio(point, reference);
    if (point.is_baseline || point.world_size != base->point.world_size ||
        !point.throughput_change_pct) {
      continue;
    }
    if (!any_compared || *point.throughput_change_pct > verdict.best_throughput_change_pct) {
      verdict.best_config = point.config_label;
      verdict.best_throughput_change_pct = *point.throughput_change_pct;
      verdict.best_accuracy_change_points = point.accuracy_change_points;
      any_compared = true;
      best = &point;
      best_reference = &reference;
    }
  }
  if (!any_compared) return;
  verdict.baseline_config = base_label;
  judge_significance(best_reference->throughput_samples_per_s, best->throughput_samples_per_s,
                     verdict);
  if (report.target_gain_pct) {
    verdict.target_met = verdict.best_throughput_change_pct >= *report.target_gain_pct;
  }
  report.sensitivity = verdict;
}

}  // namespace scalestudy::results
