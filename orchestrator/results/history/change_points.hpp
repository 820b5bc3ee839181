// Change points in a series of measurements (one value per campaign), found the way Hunter
// (Fleming et al., ICPE 2023), now Apache Otava, finds them: E-Divisive means (Matteson and
// James, 2014) proposes splits, and Student's t-test in place of the permutation test
// decides which are significant, so the answer is deterministic. Two passes, as Otava's
// compute_change_points does (docs/history.md):
//   split: windows of `window_len` points, half a window apart; in each, the split that
//          maximises the energy statistic Q-hat is kept while the t-test between the two
//          parts it cuts has p <= 10 x max_pvalue ("weak" change points);
//   merge: the weakest point (highest p, or, when all p < max_pvalue, the smallest
//          relative change while it is <= min_magnitude) is removed and its neighbours
//          retested against their new segments, until every point is strong.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <vector>

namespace scalestudy::results {

struct ChangePointSettings {
  int window_len = 12;        // points per sliding window of the split pass (>= 2)
  double max_pvalue = 0.001;  // a change point's t-test p must be below this
  double min_magnitude = 0;   // ... and its relative change above this (0: p alone decides)
};

// A change point: the series' segment starts anew at `index` (the first point after the
// change), with the statistics of the segments either side of it.
struct ChangePoint {
  size_t index = 0;
  double mean_before = 0, mean_after = 0;
  double stddev_before = 0, stddev_after = 0;  // population standard deviations, as Otava's
  double pvalue = 1;                           // two-sided Student's t (pooled variance)

  // mean_after / mean_before - 1; 0 when mean_before is 0.
  double forward_change() const;
  // The larger of |forward_change| and |mean_before / mean_after - 1|.
  double magnitude() const;
};

// The change points of `series`, by index; none for fewer than 3 points.
std::vector<ChangePoint> find_change_points(const std::vector<double>& series,
                                            const ChangePointSettings& settings = {});

}  // namespace scalestudy::results
