#include "harness/gpu/nvml_reader.hpp"

#include "harness/gpu/clock_events.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::gpu {
namespace {

TEST_CASE("a missing NVML library reports NVML unavailable") {
  auto reader = NvmlReader::open(NvmlOptions{"libscalestudy-no-such-nvml.so.1", "", 0});
  REQUIRE_FALSE(reader.is_ok());
  CHECK(reader.status().message().rfind("NVML unavailable: ", 0) == 0);
  CHECK(reader.status().message().find("libscalestudy-no-such-nvml.so.1") != std::string::npos);
}

TEST_CASE("a library without the NVML entry points is not NVML") {
  auto reader = NvmlReader::open(NvmlOptions{"libm.so.6", "", 0});
  REQUIRE_FALSE(reader.is_ok());
  CHECK(reader.status().message() == "NVML unavailable: libm.so.6 lacks nvmlInit_v2");
}

TEST_CASE("readings are converted to the telemetry table's units") {
  auto reader = NvmlReader::open(NvmlOptions{SCALESTUDY_FAKE_NVML, "0000:3B:00.0", 0});
  REQUIRE_MESSAGE(reader.is_ok(), reader.status().message());
  metrics::TelemetrySample sample;
  (*reader)->read(sample);
  CHECK(sample.gpu_util_pct == 87.0);
  CHECK(sample.gpu_mem_used_bytes == (int64_t{3} << 30));
  CHECK(sample.gpu_power_w == doctest::Approx(312.5));
  CHECK_FALSE(sample.gpu_temp_c.has_value());
  CHECK_FALSE(sample.cpu_rss_bytes.has_value());
}

TEST_CASE("the energy counter, the SM clock and the older driver's throttle reasons are read") {
  auto reader = NvmlReader::open(NvmlOptions{SCALESTUDY_FAKE_NVML, "", 0});
  REQUIRE_MESSAGE(reader.is_ok(), reader.status().message());
  // The stand-in has only nvmlDeviceGetCurrentClocksThrottleReasons: the fallback answers.
  CHECK((*reader)->missing_readings().empty());
  metrics::TelemetrySample before;
  (*reader)->read(before);
  CHECK(before.gpu_sm_clock_mhz == 1980.0);
  CHECK(before.gpu_clock_events == uint64_t{0});
  Result<double> first = (*reader)->energy_mj();
  Result<double> second = (*reader)->energy_mj();  // the stand-in throttles from here on
  REQUIRE(first.is_ok());
  REQUIRE(second.is_ok());
  CHECK(*second - *first == 90000.0);
  metrics::TelemetrySample after;
  (*reader)->read(after);
  CHECK(after.gpu_sm_clock_mhz == 1410.0);
  CHECK(after.gpu_clock_events == uint64_t{0x40});
  CHECK(after.gpu_power_w == doctest::Approx(350.0));
}

TEST_CASE("a driver with only the current name of the clock-event reasons answers through it") {
  auto reader = NvmlReader::open(NvmlOptions{SCALESTUDY_FAKE_NVML_CURRENT, "", 0});
  REQUIRE_MESSAGE(reader.is_ok(), reader.status().message());
  CHECK((*reader)->missing_readings().empty());
  metrics::TelemetrySample before;
  (*reader)->read(before);
  CHECK(before.gpu_clock_events == uint64_t{0});
  REQUIRE((*reader)->energy_mj().is_ok());
  REQUIRE((*reader)->energy_mj().is_ok());  // the second read throttles the stand-in
  metrics::TelemetrySample after;
  (*reader)->read(after);
  CHECK(after.gpu_clock_events == uint64_t{0x40});
}

TEST_CASE("clock-event reasons are named as NVML defines their bits") {
  CHECK(clock_event_names(0).empty());
  CHECK(clock_event_names(0x40) == "hw thermal slowdown");
  CHECK(clock_event_names(0x4 | 0x8 | 0x20 | 0x80) ==
        "sw power cap, hw slowdown, sw thermal slowdown, hw power brake slowdown");
  CHECK(clock_event_names(0x1 | 0x1000) == "gpu idle, reason 0x1000");
}

TEST_CASE("an unknown device is reported with what was asked for") {
  auto by_index = NvmlReader::open(NvmlOptions{SCALESTUDY_FAKE_NVML, "", 3});
  REQUIRE_FALSE(by_index.is_ok());
  CHECK(by_index.status().message() == "NVML unavailable: no device with index 3: Not Found");
  auto by_bus = NvmlReader::open(NvmlOptions{SCALESTUDY_FAKE_NVML, "0000:AF:00.0", 0});
  REQUIRE_FALSE(by_bus.is_ok());
  CHECK(by_bus.status().message() ==
        "NVML unavailable: no device with PCI bus id 0000:AF:00.0: Not Found");
}

}  // namespace
}  // namespace scalestudy::gpu
