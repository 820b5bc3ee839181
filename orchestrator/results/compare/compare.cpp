#include "orchestrator/results/compare/compare.hpp"

#include <algorithm>
#include <cmath>

namespace scalestudy::results {
namespace {

bool same_point(const ReportPoint& a, const ReportPoint& b) {
  return a.config_label == b.config_label && a.world_size == b.world_size && a.nodes == b.nodes;
}

std::string point_name(const ReportPoint& point) {
  std::string name = "N=" + std::to_string(point.world_size);
  if (point.config_label != "default") name += " (" + point.config_label + ")";
  return name;
}

}  // namespace

const char* to_string(CompareVerdict verdict) {
  switch (verdict) {
    case CompareVerdict::kFaster:
      return "faster";
    case CompareVerdict::kSlower:
      return "slower";
    case CompareVerdict::kNoSignificantChange:
      return "no significant change";
    case CompareVerdict::kCannotJudge:
      break;
  }
  return "cannot judge";
}

bool Comparison::regressed() const {
  return std::any_of(points.begin(), points.end(), [](const ComparedPoint& point) {
    return point.verdict == CompareVerdict::kSlower;
  });
}

void explain_differences(Comparison& comparison,
                         const std::map<std::string, ProvenanceValues>& provenance_a,
                         const std::map<std::string, ProvenanceValues>& provenance_b) {
  for (auto& point : comparison.points) {
    point.differences = diff_provenance(merge_provenance(provenance_a, point.run_ids_a),
                                        merge_provenance(provenance_b, point.run_ids_b));
  }
}

CompareVerdict judge(const MeanComparison& comparison, double threshold_pct) {
  if (!comparison.significant) return CompareVerdict::kCannotJudge;
  if (!*comparison.significant || std::fabs(comparison.change_pct) < threshold_pct) {
    return CompareVerdict::kNoSignificantChange;
  }
  return comparison.change_pct > 0 ? CompareVerdict::kFaster : CompareVerdict::kSlower;
}

Comparison compare_reports(const Report& a, const Report& b, const std::string& label_a,
                           const std::string& label_b, double threshold_pct) {
  Comparison result;
  result.label_a = label_a;
  result.label_b = label_b;
  result.threshold_pct = threshold_pct;
  for (const auto& point_a : a.points) {
    if (point_a.run_ids.empty()) continue;
    auto match = std::find_if(b.points.begin(), b.points.end(), [&](const ReportPoint& point_b) {
      return same_point(point_a, point_b) && !point_b.run_ids.empty();
    });
    if (match == b.points.end()) {
      result.warnings.push_back(point_name(point_a) + ": measured in " + label_a + " only");
      continue;
    }
    ComparedPoint compared;
    compared.config_label = point_a.config_label;
    compared.world_size = point_a.world_size;
    compared.nodes = point_a.nodes;
    compared.throughput_a = point_a.throughput_samples_per_s;
    compared.throughput_b = match->throughput_samples_per_s;
    compared.efficiency_a = point_a.efficiency;
    compared.efficiency_b = match->efficiency;
    compared.run_ids_a = point_a.run_ids;
    compared.run_ids_b = match->run_ids;
    compared.comparison = compare_means(compared.throughput_a, compared.throughput_b);
    compared.verdict = judge(compared.comparison, threshold_pct);
    if (compared.verdict == CompareVerdict::kCannotJudge ||
        compared.verdict == CompareVerdict::kNoSignificantChange) {
      const double noise_pct = std::max(compared.throughput_a.cv_pct, compared.throughput_b.cv_pct);
      // Without a noise estimate, the threshold is the change a test must resolve.
      compared.repeats_needed =
          noise_pct > 0 ? repeats_needed(noise_pct, threshold_pct) : kMinRepeatsForTest + 1;
    }
    result.points.push_back(std::move(compared));
  }
  for (const auto& point_b : b.points) {
    if (point_b.run_ids.empty()) continue;
    const bool in_a = std::any_of(a.points.begin(), a.points.end(), [&](const ReportPoint& p) {
      return same_point(p, point_b) && !p.run_ids.empty();
    });
    if (!in_a)
      result.warnings.push_back(point_name(point_b) + ": measured in " + label_b + " only");
  }
  if (result.points.empty()) result.warnings.push_back("no point is measured in both studies");
  return result;
}

}  // namespace scalestudy::results
