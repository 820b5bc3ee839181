#include "orchestrator/results/analysis/significance.hpp"

#include <algorithm>
#include <cmath>

namespace scalestudy::results {
namespace {

constexpr double kNormalQuantile80 = 0.842;

}  // namespace

MeanComparison compare_means(const Summary& a, const Summary& b) {
  MeanComparison result;
  if (a.mean == 0) return result;
  result.ratio = b.mean / a.mean;
  result.change_pct = (result.ratio - 1) * 100;
  if (a.count < kMinRepeatsForTest || b.count < kMinRepeatsForTest) return result;

  const double variance_a = a.stddev * a.stddev / a.count;
  const double variance_b = b.stddev * b.stddev / b.count;
  const double standard_error = std::sqrt(variance_a + variance_b);
  const double difference = b.mean - a.mean;
  if (standard_error == 0) {
    // Identical repeats on both sides: any difference is exact, none is noise.
    result.welch_df = a.count + b.count - 2;
    result.significant = difference != 0;
    result.ratio_ci95_low = result.ratio_ci95_high = result.ratio;
    return result;
  }
  result.welch_t = difference / standard_error;
  const double df =
      (variance_a + variance_b) * (variance_a + variance_b) /
      (variance_a * variance_a / (a.count - 1) + variance_b * variance_b / (b.count - 1));
  result.welch_df = df;
  const double t_critical = student_t_975(std::max(1, static_cast<int>(std::floor(df))));
  result.significant = std::fabs(*result.welch_t) > t_critical;

  const double cv_a = a.stddev / a.mean, cv_b = b.mean != 0 ? b.stddev / b.mean : 0;
  const double relative_error = std::sqrt(cv_a * cv_a / a.count + cv_b * cv_b / b.count);
  if (result.ratio > 0) {
    // On the log scale a ratio of positive means keeps its interval above 0 however
    // noisy the repeats.
    result.ratio_ci95_low = result.ratio * std::exp(-t_critical * relative_error);
    result.ratio_ci95_high = result.ratio * std::exp(t_critical * relative_error);
  } else {
    const double ratio_error = std::fabs(result.ratio) * relative_error;
    result.ratio_ci95_low = result.ratio - t_critical * ratio_error;
    result.ratio_ci95_high = result.ratio + t_critical * ratio_error;
  }
  return result;
}

std::optional<int> repeats_needed(double cv_pct, double change_pct) {
  if (change_pct == 0) return std::nullopt;
  const double z = kNormalQuantile975 + kNormalQuantile80;
  const double relative = cv_pct / change_pct;
  const int needed = static_cast<int>(std::ceil(2 * z * z * relative * relative));
  return std::max(needed, kMinRepeatsForTest + 1);
}

}  // namespace scalestudy::results
