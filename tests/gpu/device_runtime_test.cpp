// The device side of the GPU path's wiring, on whatever this machine has: --device and
// --backend resolution, precision support per device type, the CPU DeviceRuntime, and
// NVML telemetry through the sampler into the memory summary (with the stand-in NVML
// library of this folder).
#include "harness/gpu/device_runtime.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include "harness/dist/connect.hpp"
#include "harness/gpu/nvml_reader.hpp"
#include "harness/gpu/precision.hpp"
#include "harness/metrics/telemetry_summary.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::gpu {
namespace {

TEST_CASE("--device names parse and a bad one lists the choices") {
  CHECK(*parse_device_kind("auto") == DeviceKind::kAuto);
  CHECK(*parse_device_kind("cpu") == DeviceKind::kCpu);
  CHECK(*parse_device_kind("cuda") == DeviceKind::kCuda);
  auto bad = parse_device_kind("gpu");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() == "--device: 'gpu' is not one of auto, cpu, cuda");
}

TEST_CASE("the CPU runtime times phases on the host and has no device memory or graphs") {
  auto runtime = open_device(DeviceKind::kCpu, 0);
  REQUIRE(runtime.is_ok());
  CHECK((*runtime)->device() == torch::Device(torch::kCPU));
  CHECK((*runtime)->provenance().empty());
  CHECK((*runtime)->memory_capacity_bytes() == 0);
  CHECK((*runtime)->memory_peaks().empty());
  CHECK_FALSE((*runtime)->nvml().source());
  CHECK((*runtime)->nvml().unavailable() == "no GPU: the run is on the CPU");

  std::unique_ptr<metrics::PhaseClock> clock = (*runtime)->make_phase_clock();
  clock->begin(metrics::Phase::kForward);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  clock->end(metrics::Phase::kForward);
  std::optional<metrics::PhaseTimes> times = clock->collect();  // a host clock: at once
  REQUIRE(times.has_value());
  CHECK((*times)[metrics::Phase::kForward] >= 19.0);
  CHECK((*times)[metrics::Phase::kBackward] == 0.0);
  CHECK_FALSE(clock->flush().has_value());

  int runs = 0;
  auto graph = (*runtime)->capture_step([&] { ++runs; }, 3);
  REQUIRE_FALSE(graph.is_ok());
  CHECK(graph.status().message() == "--cuda-graph needs a CUDA device; this run is on the CPU");
  CHECK(runs == 0);
}

TEST_CASE("--device cuda opens the GPU of the local rank, or says why it cannot") {
  auto runtime = open_device(DeviceKind::kCuda, 0);
  auto automatic = open_device(DeviceKind::kAuto, 0);
  REQUIRE(automatic.is_ok());
  if (torch::cuda::is_available() && runtime.is_ok()) {
    CHECK((*runtime)->device().is_cuda());
    CHECK((*runtime)->memory_capacity_bytes() > 0);
    CHECK((*runtime)->provenance().count("gpu_model") == 1);
    CHECK((*automatic)->device().is_cuda());
    return;
  }
  REQUIRE_FALSE(runtime.is_ok());
  CHECK(runtime.status().message().rfind("--device cuda: ", 0) == 0);
  CHECK((*automatic)->device() == torch::Device(torch::kCPU));
}

TEST_CASE("--backend auto follows the device; a backend that cannot reduce its tensors fails") {
  const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA, 0);
  CHECK(*dist::resolve_backend("auto", cpu) == "gloo");
  CHECK(*dist::resolve_backend("auto", cuda) == "nccl");
  CHECK(*dist::resolve_backend("gloo", cpu) == "gloo");
  CHECK(*dist::resolve_backend("nccl", cuda) == "nccl");
  CHECK(dist::resolve_backend("nccl", cpu).status().message() ==
        "--backend nccl needs a CUDA device; this run is on the cpu");
  CHECK(dist::resolve_backend("gloo", cuda).status().message().rfind("--backend gloo", 0) == 0);
  CHECK(dist::resolve_backend("mpi", cpu).status().message() ==
        "--backend: 'mpi' is not one of auto, gloo, nccl");
}

TEST_CASE("the CPU device offers no NCCL communicator") {
  auto runtime = open_device(DeviceKind::kCpu, 0);
  REQUIRE(runtime.is_ok());
  CHECK_FALSE((*runtime)->nccl_factory());
}

TEST_CASE("fp16 and tf32 need a CUDA device; bf16 and fp32 run on the CPU") {
  for (Precision precision :
       {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16}) {
    CHECK(check_precision_supported(precision, c10::DeviceType::CUDA).is_ok());
  }
  CHECK(check_precision_supported(Precision::kFp32, c10::DeviceType::CPU).is_ok());
  CHECK(check_precision_supported(Precision::kBf16, c10::DeviceType::CPU).is_ok());
  CHECK(check_precision_supported(Precision::kFp16, c10::DeviceType::CPU).message() ==
        "--precision fp16 needs a CUDA device: CPU autocast has no float16 (use bf16 or fp32)");
  CHECK(check_precision_supported(Precision::kTf32, c10::DeviceType::CPU)
            .message()
            .rfind("--precision tf32 needs a CUDA device", 0) == 0);
}

TEST_CASE("NVML readings reach the telemetry samples and the memory summary") {
  auto reader = NvmlReader::open(NvmlOptions{SCALESTUDY_FAKE_NVML, "0000:3B:00.0", 0});
  REQUIRE_MESSAGE(reader.is_ok(), reader.status().message());
  std::shared_ptr<NvmlReader> nvml = std::move(*reader);
  std::atomic<int> taken{0};
  metrics::TelemetrySampler sampler(5, [nvml, &taken](metrics::TelemetrySample& s) {
    nvml->read(s);
    ++taken;
  });
  sampler.start();
  // Until two samples are taken, not for a fixed time: a loaded machine may run the sampler
  // thread late. The deadline only guards against a hang.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (taken < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::vector<metrics::TelemetrySample> samples = sampler.stop();
  REQUIRE(samples.size() >= 2);
  for (const metrics::TelemetrySample& sample : samples) {
    CHECK(sample.cpu_rss_bytes.value_or(0) > 0);
    CHECK(sample.gpu_util_pct == 87.0);
  }
  std::map<std::string, double> summary = metrics::gpu_memory_summary(samples);
  CHECK(summary["gpu_mem_avg_bytes"] == static_cast<double>(int64_t{3} << 30));
  CHECK(summary["gpu_mem_mode_bytes"] == static_cast<double>(int64_t{3} << 30));
}

TEST_CASE("the memory summary's mode is the plateau, at MiB resolution, the larger on a tie") {
  constexpr int64_t kMiB = int64_t{1} << 20;
  auto sample = [](std::optional<int64_t> used) {
    metrics::TelemetrySample s;
    s.gpu_mem_used_bytes = used;
    return s;
  };
  // A ramp, then a plateau that jitters by a few KiB; a CPU-only sample is ignored.
  std::vector<metrics::TelemetrySample> samples = {sample(100 * kMiB),        sample(300 * kMiB),
                                                   sample(500 * kMiB + 4096), sample(500 * kMiB),
                                                   sample(500 * kMiB - 4096), sample(std::nullopt)};
  std::map<std::string, double> summary = metrics::gpu_memory_summary(samples);
  CHECK(summary.at("gpu_mem_mode_bytes") == 500.0 * kMiB);
  CHECK(summary.at("gpu_mem_avg_bytes") == doctest::Approx(380.0 * kMiB));

  CHECK(metrics::gpu_memory_summary({sample(100 * kMiB), sample(200 * kMiB)})
            .at("gpu_mem_mode_bytes") == 200.0 * kMiB);
  CHECK(metrics::gpu_memory_summary({sample(std::nullopt)}).empty());
}

}  // namespace
}  // namespace scalestudy::gpu
