// Descriptive statistics over repeats and steps: median, extremes, mean, sample standard
// deviation, coefficient of variation and the 95% confidence interval of the mean with
// Student's t. Pure functions over values; thread-safe.
#pragma once

#include <optional>
#include <vector>

namespace scalestudy::results {

// The standard normal's 0.975 quantile: two-sided 95% bounds for large samples.
inline constexpr double kNormalQuantile975 = 1.960;

struct Summary {
  int count = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 when count < 2
  double cv_pct = 0;  // stddev / mean * 100; 0 when the mean is 0
  // Half-width of the 95% confidence interval of the mean, only when count >= 3.
  std::optional<double> ci95_half_width;
};

double median(std::vector<double> values);  // 0 for an empty input
// The `fraction` quantile (0.95: p95), interpolated linearly between the two nearest
// ranks as numpy's default does; 0 for an empty input.
double percentile(std::vector<double> values, double fraction);
double mean(const std::vector<double>& values);
double sample_stddev(const std::vector<double>& values);
// The 0.975 quantile of Student's t with `degrees_of_freedom` >= 1 (two-sided 95%).
double student_t_975(int degrees_of_freedom);
// Summary of `values`; an empty input gives count 0 and zeros.
Summary summarize(const std::vector<double>& values);

}  // namespace scalestudy::results
