#include "orchestrator/results/analysis/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

namespace scalestudy::results {
namespace {

// t(0.975, df) for df = 1..30, then the rows statistics tables print for larger df.
constexpr double kTQuantiles[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
struct TRow {
  int degrees_of_freedom;
  double quantile;
};
constexpr TRow kTLargeRows[] = {{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}};

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  const double upper = values[middle];
  const double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2;
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double position = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(position);
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (values[above] - values[below]) * (position - static_cast<double>(below));
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

double sample_stddev(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double average = mean(values);
  double squares = 0;
  for (double value : values) squares += (value - average) * (value - average);
  return std::sqrt(squares / (values.size() - 1));
}

double student_t_975(int degrees_of_freedom) {
  if (degrees_of_freedom < 1) degrees_of_freedom = 1;
  if (degrees_of_freedom <= 30) return kTQuantiles[degrees_of_freedom - 1];
  // Linear in 1/df between table rows, as printed tables are meant to be read.
  for (size_t i = 1; i < std::size(kTLargeRows); ++i) {
    const TRow& low = kTLargeRows[i - 1];
    const TRow& high = kTLargeRows[i];
    if (degrees_of_freedom <= high.degrees_of_freedom) {
      const double x = 1.0 / degrees_of_freedom;
      const double x_low = 1.0 / low.degrees_of_freedom, x_high = 1.0 / high.degrees_of_freedom;
      return high.quantile + (low.quantile - high.quantile) * (x - x_high) / (x_low - x_high);
    }
  }
  const TRow& last = kTLargeRows[std::size(kTLargeRows) - 1];
  const double x = 1.0 / degrees_of_freedom, x_last = 1.0 / last.degrees_of_freedom;
  return kNormalQuantile975 + (last.quantile - kNormalQuantile975) * x / x_last;
}

Summary summarize(const std::vector<double>& values) {
  Summary summary;
  summary.count = static_cast<int>(values.size());
  if (values.empty()) return summary;
  summary.median = median(values);
  auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
  summary.min = *min_it;
  summary.max = *max_it;
  summary.mean = mean(values);
  summary.stddev = sample_stddev(values);
  summary.cv_pct = summary.mean != 0 ? summary.stddev / std::fabs(summary.mean) * 100 : 0;
  if (summary.count >= 3) {
    summary.ci95_half_width =
        student_t_975(summary.count - 1) * summary.stddev / std::sqrt(summary.count);
  }
  return summary;
}

}  // namespace scalestudy::results
