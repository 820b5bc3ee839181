// The measurement rules of harness/metrics: a device clock read one step late (with fake
// events that count how often the host waited) and the wall-clock window of the
// throughput meter.
#include <doctest/doctest.h>

#include <thread>

#include "harness/metrics/event_phase_clock.hpp"
#include "harness/metrics/throughput_meter.hpp"

namespace scalestudy::metrics {
namespace {

// A device event on a fake timeline: record() stamps the current fake time,
// synchronize() counts as one host wait.
struct FakeEvent {
  static inline double now_ms = 0;
  static inline std::vector<double> waited_for_ms;  // the stamps the host waited for

  double stamp_ms = -1;
  void record() { stamp_ms = now_ms; }
  void synchronize() { waited_for_ms.push_back(stamp_ms); }
  double elapsed_ms_since(const FakeEvent& start) const { return stamp_ms - start.stamp_ms; }
};

// One step of `forward_ms` then `step_tail_ms` more inside the step phase.
void fake_step(EventPhaseClock<FakeEvent>& clock, double forward_ms, double step_tail_ms) {
  clock.begin(Phase::kStep);
  clock.begin(Phase::kForward);
  FakeEvent::now_ms += forward_ms;
  clock.end(Phase::kForward);
  FakeEvent::now_ms += step_tail_ms;
  clock.end(Phase::kStep);
}

}  // namespace

TEST_CASE("a device clock reads each step's events one step late") {
  FakeEvent::now_ms = 0;
  FakeEvent::waited_for_ms.clear();
  EventPhaseClock<FakeEvent> clock;

  fake_step(clock, 2, 1);
  CHECK_FALSE(clock.collect().has_value());  // nothing known yet, and no wait
  CHECK(FakeEvent::waited_for_ms.empty());

  fake_step(clock, 5, 3);
  std::optional<PhaseTimes> first = clock.collect();  // the first step's times
  REQUIRE(first.has_value());
  CHECK((*first)[Phase::kForward] == 2);
  CHECK((*first)[Phase::kStep] == 3);
  // The host waited for the first step's end (t = 3), never for the step just queued.
  CHECK(FakeEvent::waited_for_ms == std::vector<double>{3});

  std::optional<PhaseTimes> second = clock.flush();
  REQUIRE(second.has_value());
  CHECK((*second)[Phase::kForward] == 5);
  CHECK((*second)[Phase::kStep] == 8);
  CHECK_FALSE(clock.flush().has_value());  // nothing held any more

  // A phase entered twice within a step accumulates; the pools are reused.
  clock.begin(Phase::kData);
  FakeEvent::now_ms += 1;
  clock.end(Phase::kData);
  clock.begin(Phase::kData);
  FakeEvent::now_ms += 2;
  clock.end(Phase::kData);
  CHECK_FALSE(clock.collect().has_value());
  CHECK((*clock.flush())[Phase::kData] == 3);
}

TEST_CASE("throughput is timed over the measured window, host time between steps included") {
  ThroughputMeter meter(/*warmup_steps=*/1);
  meter.start_epoch();
  meter.record(0, 10, 50);  // warm-up: outside the window
  const auto start = std::chrono::steady_clock::now();
  meter.open_window(start);
  CHECK(meter.window_open());
  meter.record(1, 10, 20);
  meter.record(2, 10, 20);
  meter.close_window(start + std::chrono::milliseconds(100));
  CHECK_FALSE(meter.window_open());
  const ThroughputTotals& measured = meter.run_measured();
  CHECK(measured.samples == 20);
  CHECK(measured.step_ms == 40);
  CHECK(measured.wall_ms == doctest::Approx(100));
  CHECK(measured.elapsed_ms() == doctest::Approx(100));  // the wall time wins
  CHECK(meter.epoch_measured().wall_ms == doctest::Approx(100));
  // Without a window the step times stand in.
  CHECK(meter.epoch_all().elapsed_ms() == 90);
}

TEST_CASE("a resumed meter keeps the earlier attempts' totals and warms up again") {
  ThroughputMeter first(/*warmup_steps=*/2);
  first.start_epoch();
  for (int64_t step = 0; step < 5; ++step) first.record(step, 10, 20);  // 2 warm-up, 3 measured
  ThroughputMeter::State carried = first.state();
  CHECK(carried.run_measured.steps == 3);

  ThroughputMeter resumed(/*warmup_steps=*/2);
  resumed.start_epoch();
  resumed.resume(carried, /*global_step=*/5);
  CHECK(resumed.is_warmup(5));
  CHECK(resumed.is_warmup(6));
  CHECK_FALSE(resumed.is_warmup(7));
  for (int64_t step = 5; step < 9; ++step) resumed.record(step, 10, step < 7 ? 90 : 30);
  // 3 + 2 measured steps, neither attempt's warm-up among them.
  CHECK(resumed.run_measured().steps == 5);
  CHECK(resumed.run_measured().samples == 50);
  CHECK(resumed.run_measured().step_ms == 3 * 20 + 2 * 30);
  CHECK(resumed.epoch_all().steps == 9);
  CHECK(resumed.median_step_ms() == 20);
}

}  // namespace scalestudy::metrics
