// EnergyLog and summarise_energy on scripted readings: a window's energy is the counter's
// rise between its ends, its power that over its time; its peak power, clock range and
// reasons come from its ends and the telemetry samples inside it only (an idle sample's
// clock left out); without a counter the figures stay empty with the reason.
#include "harness/metrics/energy_log.hpp"

#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::metrics {
namespace {

TelemetrySample sample(double t_s, double power_w, double clock_mhz, uint64_t events) {
  TelemetrySample s;
  s.t_s = t_s;
  s.gpu_power_w = power_w;
  s.gpu_sm_clock_mhz = clock_mhz;
  s.gpu_clock_events = events;
  return s;
}

DeviceReading reading(double t_s, std::optional<double> energy_mj, TelemetrySample s) {
  return {t_s, energy_mj, s};
}

TEST_CASE("a window's energy is the counter's rise; peaks and reasons from inside it only") {
  EnergyWindow window{3, 640, reading(10, 1'000'000, sample(10, 300, 1980, 0)),
                      reading(14, 2'200'000, sample(14, 310, 1980, 0))};
  std::vector<TelemetrySample> samples = {
      sample(9, 500, 900, 0x4),     // before the window: not counted
      sample(12, 340, 1410, 0x40),  // inside
      sample(15, 600, 800, 0x8),    // after
  };
  std::vector<EnergyRow> rows = summarise_energy({window}, samples, "");
  REQUIRE(rows.size() == 1);
  const EnergyRow& row = rows[0];
  CHECK(row.epoch == 3);
  CHECK(row.samples == 640);
  CHECK(row.measured_s == 4.0);
  CHECK(row.energy_j == 1200.0);
  CHECK(row.avg_power_w == 300.0);
  CHECK(row.peak_power_w == 340.0);
  CHECK(row.sm_clock_max_mhz == 1980.0);
  CHECK(row.sm_clock_min_mhz == 1410.0);
  CHECK(row.clock_events == "hw thermal slowdown");
  CHECK(row.unavailable.empty());
}

TEST_CASE("an idle GPU's clock is no clock drop; its reason is still recorded") {
  EnergyWindow window{1, 64, reading(10, 0, sample(10, 300, 1980, 0)),
                      reading(14, 1'000'000, sample(14, 310, 1965, 0))};
  std::vector<TelemetrySample> samples = {
      sample(12, 90, 345, 0x1),  // an input stall: idle, clocks down by design
  };
  std::vector<EnergyRow> rows = summarise_energy({window}, samples, "");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].sm_clock_max_mhz == 1980.0);
  CHECK(rows[0].sm_clock_min_mhz == 1965.0);
  CHECK(rows[0].clock_events == "gpu idle");
}

TEST_CASE("without NVML the log keeps its windows, every figure empty with the reason") {
  EnergyLog log(std::chrono::steady_clock::now(), nullptr, nullptr,
                "no GPU: the run is on the CPU");
  log.close(1, 10);  // no window open: nothing
  log.open(16);      // a resumed epoch: 16 samples measured by an earlier attempt
  log.open(32);      // after a checkpoint mid-epoch: the window stays open from 16
  log.close(1, 80);
  REQUIRE(log.windows().size() == 1);
  std::vector<EnergyRow> rows = summarise_energy(log.windows(), {}, log.unavailable());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].samples == 64);
  CHECK_FALSE(rows[0].energy_j);
  CHECK_FALSE(rows[0].peak_power_w);
  CHECK(rows[0].clock_events.empty());
  CHECK(rows[0].unavailable == "no GPU: the run is on the CPU");
}

TEST_CASE("a counter that cannot be read says why, once") {
  int reads = 0;
  EnergyLog log(
      std::chrono::steady_clock::now(),
      [&reads]() -> Result<double> {
        ++reads;
        return Status::error("nvmlDeviceGetTotalEnergyConsumption: Not Supported");
      },
      nullptr, "");
  log.open(0);
  log.close(1, 8);
  log.open(0);
  log.close(2, 8);
  CHECK(reads == 4);
  CHECK(log.unavailable() == "nvmlDeviceGetTotalEnergyConsumption: Not Supported");
  CHECK_FALSE(summarise_energy(log.windows(), {}, log.unavailable())[1].energy_j);
}

TEST_CASE("readings NVML answered with an error are named where no reason was given") {
  TelemetrySample no_clock = sample(1, 300, 0, 0);
  no_clock.gpu_sm_clock_mhz.reset();
  no_clock.gpu_clock_events.reset();
  EnergyWindow window{1, 8, reading(1, 0, no_clock), reading(2, 1000, no_clock)};
  std::vector<EnergyRow> rows = summarise_energy({window}, {}, "");
  CHECK(rows[0].energy_j == 1.0);
  CHECK(rows[0].unavailable == "NVML gave no SM clock, clock events");
}

}  // namespace
}  // namespace scalestudy::metrics
