// Whether two sets of repeats differ beyond their noise: the ratio of their means with a
// 95% confidence interval (delta method, on the log scale), Welch's t-test (unequal variances,
// two-sided, 5%), and how many repeats a change of a given size would need to be told from noise
// (two-sided 5% test, 80% power). Used by `compare` and the sensitivity verdict. Pure
// functions over Summary values; thread-safe.
#pragma once

#include <optional>

#include "orchestrator/results/analysis/statistics.hpp"

namespace scalestudy::results {

// Repeats a side needs before a test can be made at all.
inline constexpr int kMinRepeatsForTest = 2;

struct MeanComparison {
  double ratio = 0;       // mean(b) / mean(a); 0 when mean(a) is 0
  double change_pct = 0;  // (ratio − 1) · 100
  // Only when both sides have >= kMinRepeatsForTest repeats.
  std::optional<double> ratio_ci95_low, ratio_ci95_high;
  std::optional<double> welch_t, welch_df;
  std::optional<bool> significant;  // |t| > t(0.975, ⌊df⌋)
};

// Welch's t = (mean_b − mean_a) / sqrt(s_a²/n_a + s_b²/n_b) with the Welch–Satterthwaite
// degrees of freedom; ratio CI = ratio · exp(± t(0.975, ⌊df⌋) · sqrt(cv_a²/n_a + cv_b²/n_b)),
// never below 0 (a ratio ≤ 0, from a side with a mean ≤ 0: ratio ± t · |ratio| · that root).
MeanComparison compare_means(const Summary& a, const Summary& b);

// Repeats per side for a two-sided 5% test with 80% power to detect a change of
// `change_pct` when the run-to-run noise is `cv_pct`: ⌈2 (1.960 + 0.842)² (cv/change)²⌉,
// at least kMinRepeatsForTest + 1. nullopt when the change is 0.
std::optional<int> repeats_needed(double cv_pct, double change_pct);

}  // namespace scalestudy::results
