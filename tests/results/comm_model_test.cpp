#include "orchestrator/results/analysis/comm_model.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::results;

TEST_CASE("all-reduce time is 2(n-1)/n · bytes / busbw") {
  CHECK(allreduce_time_ms(100e6, 2, 10) == doctest::Approx(10));  // 1.0 · 1e8 / 1e10 s
  CHECK(allreduce_time_ms(100e6, 4, 10) == doctest::Approx(15));  // 1.5 · 1e8 / 1e10 s
  CHECK(allreduce_time_ms(100e6, 1, 10) == 0);
}

TEST_CASE("bus bandwidth is interpolated in log(bytes) and clamped outside the sweep") {
  BandwidthCurve curve{"fixture", 2, {{1 << 20, 2.0}, {4 << 20, 6.0}, {16 << 20, 8.0}}};
  CHECK(*interpolate_busbw_gbps(curve, 2 << 20) == doctest::Approx(4.0));
  CHECK(*interpolate_busbw_gbps(curve, 8 << 20) == doctest::Approx(7.0));
  CHECK(*interpolate_busbw_gbps(curve, 1024) == doctest::Approx(2.0));
  CHECK(*interpolate_busbw_gbps(curve, 1e12) == doctest::Approx(8.0));
  CHECK_FALSE(interpolate_busbw_gbps(BandwidthCurve{}, 100).has_value());
}

TEST_CASE("predicted vs measured step and efficiency") {
  // 0.5 ms/sample × 32 samples = 16 ms compute; 4 ranks, 40 MB at 10 GB/s = 6 ms comm.
  CommPrediction prediction = predict_step(0.5, 32, 4, 40e6, 10, 25);
  CHECK(prediction.compute_ms == doctest::Approx(16));
  CHECK(prediction.comm_ms == doctest::Approx(6));
  CHECK(prediction.predicted_step_ms == doctest::Approx(22));
  CHECK(prediction.predicted_efficiency == doctest::Approx(16.0 / 22));
  CHECK(prediction.measured_efficiency == doctest::Approx(16.0 / 25));
}
