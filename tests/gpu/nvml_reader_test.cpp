#include "harness/gpu/nvml_reader.hpp"

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
