#include "orchestrator/results/analysis/efficiency.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::results;

TEST_CASE("strong scaling against a 1-rank baseline") {
  // X(1) = 100, X(2) = 180, X(4) = 320 samples/s.
  CHECK(strong_speedup(100, 180) == doctest::Approx(1.8));
  CHECK(strong_efficiency(100, 1, 180, 2) == doctest::Approx(0.9));
  CHECK(strong_speedup(100, 320) == doctest::Approx(3.2));
  CHECK(strong_efficiency(100, 1, 320, 4) == doctest::Approx(0.8));
  CHECK(strong_efficiency(100, 1, 100, 1) == doctest::Approx(1.0));
}

TEST_CASE("strong scaling against a 2-rank baseline equals T(base)·N_base / (T(N)·N)") {
  // Times per epoch 10 s at 2 ranks and 6 s at 4 ranks: E = 10·2 / (6·4) = 0.8333.
  const double samples = 60000;
  CHECK(strong_efficiency(samples / 10, 2, samples / 6, 4) == doctest::Approx(20.0 / 24.0));
  CHECK(strong_efficiency(180, 2, 320, 4) == doctest::Approx(320.0 * 2 / (180.0 * 4)));
}

TEST_CASE("weak scaling efficiency is the step-time ratio") {
  CHECK(weak_efficiency(10, 12.5) == doctest::Approx(0.8));
  CHECK(weak_efficiency(10, 10) == doctest::Approx(1.0));
  CHECK(weak_efficiency(10, 0) == 0);
}

TEST_CASE("sensitivity: throughput change in percent, accuracy change in points") {
  CHECK(throughput_change_pct(1000, 1250) == doctest::Approx(25));
  CHECK(throughput_change_pct(1000, 900) == doctest::Approx(-10));
  CHECK(accuracy_change_points(0.75, 0.7412) == doctest::Approx(-0.88));
}

TEST_CASE("time to accuracy sums epoch times up to the first epoch reaching the target") {
  CHECK(*time_to_accuracy_s({10, 11, 12}, {0.5, 0.71, 0.8}, 0.7) == doctest::Approx(21));
  CHECK_FALSE(time_to_accuracy_s({10, 11}, {0.5, std::nullopt}, 0.7).has_value());
}

TEST_CASE("device hours per epoch") {
  CHECK(device_hours_per_epoch(8, 450) == doctest::Approx(1.0));
}
