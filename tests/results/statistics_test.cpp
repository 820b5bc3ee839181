#include "orchestrator/results/analysis/statistics.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::results;

TEST_CASE("median of odd and even counts, unsorted input") {
  CHECK(median({5, 1, 3}) == 3);
  CHECK(median({4, 1, 3, 2}) == doctest::Approx(2.5));
  CHECK(median({}) == 0);
}

TEST_CASE("summary of three repeats: mean, sample stddev, CV and the t-based 95% CI") {
  // 10, 12, 14: mean 12, s = 2, t(0.975, 2) = 4.303, half-width = 4.303 * 2 / sqrt(3).
  Summary summary = summarize({14, 10, 12});
  CHECK(summary.count == 3);
  CHECK(summary.median == 12);
  CHECK(summary.min == 10);
  CHECK(summary.max == 14);
  CHECK(summary.mean == doctest::Approx(12));
  CHECK(summary.stddev == doctest::Approx(2));
  CHECK(summary.cv_pct == doctest::Approx(100.0 * 2 / 12));
  REQUIRE(summary.ci95_half_width.has_value());
  CHECK(*summary.ci95_half_width == doctest::Approx(4.9687).epsilon(1e-4));
}

TEST_CASE("no confidence interval below three repeats") {
  CHECK_FALSE(summarize({1, 2}).ci95_half_width.has_value());
  CHECK(summarize({7}).stddev == 0);
}

TEST_CASE("Student t quantiles: table rows, interpolation, normal limit") {
  CHECK(student_t_975(1) == doctest::Approx(12.706));
  CHECK(student_t_975(4) == doctest::Approx(2.776));
  CHECK(student_t_975(30) == doctest::Approx(2.042));
  CHECK(student_t_975(60) == doctest::Approx(2.000));
  const double t45 = student_t_975(45);
  CHECK(t45 < 2.021);
  CHECK(t45 > 2.000);
  CHECK(student_t_975(100000) == doctest::Approx(1.960).epsilon(1e-3));
}
