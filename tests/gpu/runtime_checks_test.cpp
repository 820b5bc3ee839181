// Start-up checks of the CUDA path that are pure logic: which loaded CUDA runtime and NCCL
// pass against the build's, and how memory peaks split at the end of warm-up.
#include <doctest/doctest.h>

#include "harness/gpu/memory_peaks.hpp"
#include "harness/gpu/runtime_versions.hpp"

namespace scalestudy::gpu {
namespace {

// The wheel's stack: CUDA 13.0 runtime and NCCL 2.28.9, driver for CUDA 13.0.
RuntimeVersions wheel_stack() {
  RuntimeVersions versions;
  versions.cuda_built = 13000;
  versions.cuda_loaded = 13000;
  versions.cuda_driver = 13000;
  versions.nccl_built = 22809;
  versions.nccl_loaded = 22809;
  return versions;
}

}  // namespace

TEST_CASE("the loaded CUDA runtime and NCCL must be the ones the build expects") {
  RuntimeVersions versions = wheel_stack();
  CHECK(check_runtime_versions(versions).is_ok());

  SUBCASE("a newer NCCL of the same major and a newer driver pass") {
    versions.nccl_loaded = 22901;
    versions.cuda_driver = 13020;
    CHECK(check_runtime_versions(versions).is_ok());
  }
  SUBCASE("nccl/2.18 from an environment module shadows the wheel's") {
    versions.nccl_loaded = 21805;
    CHECK(check_runtime_versions(versions).message() ==
          "the process loaded NCCL 2.18.5 but was built against NCCL 2.28.9: an older library "
          "on LD_LIBRARY_PATH (an environment module such as cuda/ or nccl/?) shadows the "
          "PyTorch wheel's; unload it or put the wheel's nvidia/*/lib first");
  }
  SUBCASE("cuda/12.2 from an environment module shadows the wheel's runtime") {
    versions.cuda_loaded = 12020;
    CHECK(check_runtime_versions(versions).message().rfind(
              "the process loaded CUDA runtime 12.2 but was built for CUDA 13.0: ", 0) == 0);
  }
  SUBCASE("a driver older than the runtime's major") {
    versions.cuda_driver = 12080;
    CHECK(check_runtime_versions(versions).message() ==
          "the GPU driver supports CUDA up to 12.8, older than the CUDA 13.0 runtime this build "
          "uses: update the driver or use a wheel for CUDA 12");
  }
}

TEST_CASE("both the loaded and the built versions are recorded") {
  RuntimeVersions versions = wheel_stack();
  versions.nccl_loaded = 22901;
  versions.cuda_driver = 13020;
  const auto provenance = runtime_version_provenance(versions);
  CHECK(provenance.at("cuda_version") == "13.0");
  CHECK(provenance.at("cuda_version_built") == "13.0");
  CHECK(provenance.at("cuda_driver_version") == "13.2");
  CHECK(provenance.at("nccl_version") == "2.29.1");
  CHECK(provenance.at("nccl_version_built") == "2.28.9");
}

TEST_CASE("memory peaks count from the end of warm-up; the all-time peak is kept") {
  MemoryPeakHistory history;
  // Warm-up: cuDNN autotuning and the data upload peak at 9 GB allocated, 12 GB reserved.
  history.before_reset(MemoryPeaks{9'000'000'000, 12'000'000'000});
  auto summary = history.summary(MemoryPeaks{4'000'000'000, 13'000'000'000});
  CHECK(summary.at("gpu_mem_peak_bytes") == 4e9);
  CHECK(summary.at("gpu_mem_reserved_peak_bytes") == 13e9);
  CHECK(summary.at("gpu_mem_peak_all_time_bytes") == 9e9);
  CHECK(summary.at("gpu_mem_reserved_peak_all_time_bytes") == 13e9);
  // Without a reset, the since-reset and all-time peaks agree.
  auto unreset = MemoryPeakHistory().summary(MemoryPeaks{5, 6});
  CHECK(unreset.at("gpu_mem_peak_all_time_bytes") == 5);
  CHECK(unreset.at("gpu_mem_reserved_peak_all_time_bytes") == 6);
}

}  // namespace scalestudy::gpu
