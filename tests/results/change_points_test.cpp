#include "orchestrator/results/history/change_points.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace scalestudy::results;

namespace {

std::vector<size_t> indices(const std::vector<ChangePoint>& points) {
  std::vector<size_t> found;
  for (const ChangePoint& point : points) found.push_back(point.index);
  return found;
}

// A level with a small deterministic wobble (+-0.5 %).
std::vector<double> level(double value, int points, int phase = 0) {
  std::vector<double> series;
  for (int i = 0; i < points; ++i)
    series.push_back(value * (1 + 0.005 * std::sin(i * 1.7 + phase)));
  return series;
}

std::vector<double> joined(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("a clear step is one change point at the first point of the new level") {
  const std::vector<double> series = joined(level(1000, 12), level(850, 12, 3));
  const auto points = find_change_points(series);
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 12);
  CHECK(points[0].mean_before == doctest::Approx(1000).epsilon(0.01));
  CHECK(points[0].mean_after == doctest::Approx(850).epsilon(0.01));
  CHECK(points[0].forward_change() == doctest::Approx(-0.15).epsilon(0.05));
  CHECK(points[0].magnitude() == doctest::Approx(1000.0 / 850 - 1).epsilon(0.05));
  CHECK(points[0].pvalue < 1e-10);
}

TEST_CASE("a flat series and a constant one have no change point") {
  CHECK(find_change_points(level(1000, 30)).empty());
  CHECK(find_change_points(std::vector<double>(20, 5.0)).empty());  // p is NaN: 0 / 0
  CHECK(find_change_points({1, 2}).empty());
  CHECK(find_change_points({}).empty());
}

TEST_CASE("a step there and one back: found in 12-point windows, not in one of 50") {
  const std::vector<double> back =
      joined(joined(level(1000, 10), level(1200, 10, 1)), level(1000, 10, 2));
  CHECK(indices(find_change_points(back)) == std::vector<size_t>{10, 20});
  // In one window Q-hat's best split of 1000, 1300, 900 is at 10, whose halves (1000
  // against 1300 and 900) the t-test cannot tell apart: the search ends there, as Otava's
  // does with its default window of 50. Windows of 12 see each step alone.
  const std::vector<double> past =
      joined(joined(level(1000, 10), level(1300, 10, 1)), level(900, 10, 2));
  CHECK(find_change_points(past, {50, 0.001, 0}).empty());
  CHECK(indices(find_change_points(past)) == std::vector<size_t>{10, 20});
  // Noise-free levels: the t-test's variance is 0 and every split is certain.
  CHECK(indices(find_change_points({1, 1, 1, 1, 2, 2, 2, 2})) == std::vector<size_t>{4});
}

TEST_CASE("a long series spans several windows: the steps in each are found") {
  std::vector<double> series;
  for (int block = 0; block < 6; ++block) {
    series = joined(series, level(block % 2 == 0 ? 1000 : 800, 25, block));
  }
  CHECK(indices(find_change_points(series, {20, 0.001, 0})) ==
        std::vector<size_t>{25, 50, 75, 100, 125});
}

TEST_CASE("min_magnitude drops significant changes smaller than it") {
  const std::vector<double> series = joined(level(1000, 15), level(980, 15, 2));
  CHECK(indices(find_change_points(series)) == std::vector<size_t>{15});
  CHECK(find_change_points(series, {50, 0.001, 0.05}).empty());
}

TEST_CASE("a dropped weak change point's left neighbour is tested against its grown segment") {
  // 1000, then 948, then 956 for 4 points: the split pass finds 10 and 18; the merge drops
  // 18 (p > 0.001). Otava 0.8.0 re-tests only the right neighbour and would keep 10's mean
  // after at 948.5 over [10, 18), -5.2% against the 4.98% of the segment that remains.
  const std::vector<double> series =
      joined(joined(level(1000, 10), level(948, 8, 3)), level(956, 4, 5));
  const auto points = find_change_points(series);
  REQUIRE(indices(points) == std::vector<size_t>{10});
  double after = 0;
  for (size_t i = 10; i < series.size(); ++i) after += series[i];
  after /= static_cast<double>(series.size() - 10);
  CHECK(points[0].mean_after == doctest::Approx(after).epsilon(1e-12));
  CHECK(points[0].forward_change() == doctest::Approx(-0.0498).epsilon(0.01));
}
