#include "orchestrator/results/history/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "orchestrator/results/analysis/student_t.hpp"

namespace scalestudy::results {
namespace {

// A half-open run of indices [start, stop).
struct Interval {
  size_t start = 0, stop = 0;
  size_t size() const { return stop - start; }
};

// The segments the change points (sorted by index) cut [0, length) into, the empty left out.
std::vector<Interval> intervals_of(const std::vector<ChangePoint>& points, size_t length) {
  std::vector<Interval> intervals;
  size_t start = 0;
  for (const ChangePoint& point : points) {
    if (point.index != start) intervals.push_back({start, point.index});
    start = point.index;
  }
  if (start != length) intervals.push_back({start, length});
  return intervals;
}

double mean_of(const std::vector<double>& series, Interval part) {
  double sum = 0;
  for (size_t i = part.start; i < part.stop; ++i) sum += series[i];
  return sum / static_cast<double>(part.size());
}

double population_stddev(const std::vector<double>& series, Interval part, double mean) {
  if (part.size() < 2) return 0;
  double squares = 0;
  for (size_t i = part.start; i < part.stop; ++i)
    squares += (series[i] - mean) * (series[i] - mean);
  return std::sqrt(squares / static_cast<double>(part.size()));
}

// The t-test of `left` against `right` as Otava makes it: scipy's ttest_ind_from_stats
// (pooled variance) fed population standard deviations. A zero variance gives p = 0 for
// different means and NaN for equal ones (0 / 0), which no threshold passes.
ChangePoint compare(const std::vector<double>& series, Interval left, Interval right) {
  ChangePoint point;
  point.index = right.start;
  point.mean_before = mean_of(series, left);
  point.mean_after = mean_of(series, right);
  point.stddev_before = population_stddev(series, left, point.mean_before);
  point.stddev_after = population_stddev(series, right, point.mean_after);
  const double n1 = static_cast<double>(left.size()), n2 = static_cast<double>(right.size());
  if (n1 + n2 <= 2) {
    point.pvalue = 1;
    return point;
  }
  const double df = n1 + n2 - 2;
  const double pooled = ((n1 - 1) * point.stddev_before * point.stddev_before +
                         (n2 - 1) * point.stddev_after * point.stddev_after) /
                        df;
  const double difference = point.mean_before - point.mean_after;
  const double scale = std::sqrt(pooled * (1 / n1 + 1 / n2));
  if (scale == 0) {
    point.pvalue = difference == 0 ? std::numeric_limits<double>::quiet_NaN() : 0;
    return point;
  }
  point.pvalue = 2 * student_t_upper_tail(std::fabs(difference / scale), df);
  return point;
}

// The statistics of a change point at `index` against the segments `intervals` make: the
// two around it when it is a segment boundary, else the two halves of the segment it cuts.
ChangePoint test_at(const std::vector<double>& series, size_t index,
                    const std::vector<Interval>& intervals) {
  for (size_t i = 0; i < intervals.size(); ++i) {
    if (intervals[i].stop == index && i + 1 < intervals.size()) {
      return compare(series, intervals[i], intervals[i + 1]);
    }
    if (intervals[i].start < index && index < intervals[i].stop) {
      return compare(series, {intervals[i].start, index}, {index, intervals[i].stop});
    }
  }
  return compare(series, {0, index}, {index, series.size()});
}

// E-Divisive's candidate in `part`: the tau maximising, over kappa, Q-hat of X = [start,
// tau) against Y = [tau, kappa), with Q-hat(X, Y) = 2/(m+n) sum|X-Y| - 2m/((m+n)(n-1))
// sum_{i<k}|Xi-Xk| - 2n/((m+n)(m-1)) sum_{j<k}|Yj-Yk|. Scanned as Otava's matrix is, whose
// cells with kappa <= tau hold 0: the first maximum in row-major order wins.
std::pair<size_t, double> best_split(const std::vector<double>& x, Interval part) {
  const size_t length = part.size();
  double best = -std::numeric_limits<double>::infinity();
  size_t best_tau = part.start + 1;
  auto consider = [&](double value, size_t tau) {
    if (value > best) {
      best = value;
      best_tau = tau;
    }
  };
  double within_x = 0;  // pairs inside [start, tau)
  for (size_t row = 0; row + 1 < length; ++row) {
    const size_t tau = part.start + row + 1;
    for (size_t i = part.start; i + 1 < tau; ++i) within_x += std::fabs(x[i] - x[tau - 1]);
    const double n = static_cast<double>(tau - part.start);
    double cross = 0, within_y = 0;
    for (size_t column = 0; column + 1 < length; ++column) {
      const size_t kappa = part.start + column + 2;
      if (kappa <= tau) {
        consider(0, tau);
        continue;
      }
      const size_t added = kappa - 1;  // Y grows by one point
      for (size_t i = part.start; i < tau; ++i) cross += std::fabs(x[i] - x[added]);
      for (size_t j = tau; j < added; ++j) within_y += std::fabs(x[j] - x[added]);
      const double m = static_cast<double>(kappa - tau);
      double q = 2 / (m + n) * cross;
      if (n > 1) q -= 2 * m / ((m + n) * (n - 1)) * within_x;
      if (m > 1) q -= 2 * n / ((m + n) * (m - 1)) * within_y;
      consider(q, tau);
    }
  }
  return {best_tau, best};
}

bool significant(const ChangePoint& point, double max_pvalue) {
  return point.pvalue <= max_pvalue;
}

// E-Divisive over one window: splits are added, best Q-hat first, while significant.
std::vector<ChangePoint> window_change_points(const std::vector<double>& series, size_t start,
                                              size_t stop, double max_pvalue) {
  const std::vector<double> window(series.begin() + static_cast<std::ptrdiff_t>(start),
                                   series.begin() + static_cast<std::ptrdiff_t>(stop));
  std::vector<ChangePoint> points;
  while (true) {
    const std::vector<Interval> intervals = intervals_of(points, window.size());
    bool found = false;
    std::pair<size_t, double> candidate{0, 0};
    for (const Interval& interval : intervals) {
      if (interval.size() < 2) continue;
      auto split = best_split(window, interval);
      if (!found || split.second > candidate.second) candidate = split;
      found = true;
    }
    if (!found) break;
    ChangePoint point = test_at(window, candidate.first, intervals);
    if (!significant(point, max_pvalue)) break;
    points.push_back(point);
    std::sort(points.begin(), points.end(),
              [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  }
  for (ChangePoint& point : points) point.index += start;
  return points;
}

// The weak change points: every window's, their statistics then taken over the whole series.
std::vector<ChangePoint> split_pass(const std::vector<double>& series, size_t window_len,
                                    double max_pvalue) {
  std::vector<ChangePoint> points;
  const size_t step = window_len / 2;
  for (size_t start = 0; start < series.size();) {
    const size_t stop = std::min(start + window_len, series.size());
    std::vector<ChangePoint> found = window_change_points(series, start, stop, max_pvalue);
    const size_t last = found.empty() ? 0 : found.back().index;
    start = std::max(last, start + step);
    for (const ChangePoint& point : found) {
      bool known = std::any_of(points.begin(), points.end(), [&](const ChangePoint& other) {
        return other.index == point.index;
      });
      if (!known) points.push_back(point);
    }
  }
  std::sort(points.begin(), points.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  const std::vector<Interval> intervals = intervals_of(points, series.size());
  for (ChangePoint& point : points) point = test_at(series, point.index, intervals);
  return points;
}

void merge_pass(const std::vector<double>& series, std::vector<ChangePoint>& points,
                const ChangePointSettings& settings) {
  while (!points.empty()) {
    // The highest p (the first of equals; NaN stays where it stands, as Python's max does).
    size_t weakest = 0;
    for (size_t i = 1; i < points.size(); ++i) {
      if (points[i].pvalue > points[weakest].pvalue) weakest = i;
    }
    if (points[weakest].pvalue < settings.max_pvalue) {
      weakest = 0;
      for (size_t i = 1; i < points.size(); ++i) {
        if (points[i].magnitude() < points[weakest].magnitude()) weakest = i;
      }
      if (points[weakest].magnitude() > settings.min_magnitude) return;
    }
    points.erase(points.begin() + static_cast<std::ptrdiff_t>(weakest));
    // Both neighbours' segments grew: the left one's right and the right one's left.
    // Otava (0.8.0) re-tests the right neighbour and the one after it, whose segments did
    // not change, and so leaves the left neighbour's statistics over its old, shorter
    // segment (docs/history.md, "Departures from Otava").
    const std::vector<Interval> intervals = intervals_of(points, series.size());
    for (size_t neighbour = weakest == 0 ? 0 : weakest - 1; neighbour <= weakest; ++neighbour) {
      if (neighbour < points.size()) {
        points[neighbour] = test_at(series, points[neighbour].index, intervals);
      }
    }
  }
}

}  // namespace

double ChangePoint::forward_change() const {
  return mean_before == 0 ? 0 : mean_after / mean_before - 1;
}

double ChangePoint::magnitude() const {
  const double backward = mean_after == 0 ? 0 : mean_before / mean_after - 1;
  return std::max(std::fabs(forward_change()), std::fabs(backward));
}

std::vector<ChangePoint> find_change_points(const std::vector<double>& series,
                                            const ChangePointSettings& settings) {
  if (series.size() < 3 || settings.window_len < 2) return {};
  // The split pass's looser threshold, as Otava sets it.
  const double p = settings.max_pvalue;
  const double first_pass = p < 0.05 ? p * 10 : (p < 0.5 ? p * 2 : p);
  std::vector<ChangePoint> points =
      split_pass(series, static_cast<size_t>(settings.window_len), first_pass);
  merge_pass(series, points, settings);
  return points;
}

}  // namespace scalestudy::results
