#include "harness/gpu/device_runtime.hpp"

#include "harness/gpu/cuda_device_runtime.hpp"

namespace scalestudy::gpu {
namespace {

class CpuRuntime : public DeviceRuntime {
 public:
  torch::Device device() const override { return torch::kCPU; }
  std::map<std::string, std::string> provenance() const override { return {}; }
  std::unique_ptr<metrics::PhaseClock> make_phase_clock() const override {
    return std::make_unique<metrics::SteadyPhaseClock>();
  }
  int64_t memory_capacity_bytes() const override { return 0; }
  std::map<std::string, double> memory_peaks() const override { return {}; }
  void reset_memory_peaks() override {}
  metrics::TelemetrySource telemetry_source() const override { return nullptr; }
  dist::ProcessGroupFactory nccl_factory() const override { return {}; }
  Result<std::unique_ptr<StepGraph>> capture_step(std::function<void()> step,
                                                  int warmup_steps) override {
    return Status::error("--cuda-graph needs a CUDA device; this run is on the CPU");
  }
};

#ifdef SCALESTUDY_WITH_CUDA
constexpr bool kBuiltWithCuda = true;
Result<std::unique_ptr<DeviceRuntime>> open_cuda(int local_rank) {
  return open_cuda_device(local_rank);
}
#else
constexpr bool kBuiltWithCuda = false;
Result<std::unique_ptr<DeviceRuntime>> open_cuda(int local_rank) {
  return Status::error(
      "--device cuda: this binary was built without CUDA (configure with "
      "-DSCALESTUDY_CUDA=ON against a CUDA LibTorch, see docs/gpu.md)");
}
#endif

}  // namespace

Result<DeviceKind> parse_device_kind(std::string_view text) {
  if (text == "auto") return DeviceKind::kAuto;
  if (text == "cpu") return DeviceKind::kCpu;
  if (text == "cuda") return DeviceKind::kCuda;
  return Status::error("--device: '" + std::string(text) + "' is not one of auto, cpu, cuda");
}

Result<std::unique_ptr<DeviceRuntime>> open_device(DeviceKind kind, int local_rank) {
  const bool use_cuda = kind == DeviceKind::kCuda || (kind == DeviceKind::kAuto && kBuiltWithCuda &&
                                                      torch::cuda::is_available());
  if (use_cuda) return open_cuda(local_rank);
  return std::unique_ptr<DeviceRuntime>(std::make_unique<CpuRuntime>());
}

}  // namespace scalestudy::gpu
