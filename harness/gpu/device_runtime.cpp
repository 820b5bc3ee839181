#include "harness/gpu/device_runtime.hpp"

#include "harness/gpu/cuda_device_runtime.hpp"

namespace scalestudy::gpu {
namespace {

class CpuRuntime : public DeviceRuntime {
 public:
  explicit CpuRuntime(NvmlTelemetry nvml) : nvml_(std::move(nvml)) {}
  torch::Device device() const override { return torch::kCPU; }
  std::map<std::string, std::string> provenance() const override { return {}; }
  std::unique_ptr<metrics::PhaseClock> make_phase_clock() const override {
    return std::make_unique<metrics::SteadyPhaseClock>();
  }
  int64_t memory_capacity_bytes() const override { return 0; }
  std::map<std::string, double> memory_peaks() const override { return {}; }
  void reset_memory_peaks() override {}
  const NvmlTelemetry& nvml() const override { return nvml_; }
  dist::ProcessGroupFactory nccl_factory() const override { return {}; }
  Result<std::unique_ptr<StepGraph>> capture_step(std::function<void()> step,
                                                  int warmup_steps) override {
    return Status::error("--cuda-graph needs a CUDA device; this run is on the CPU");
  }

 private:
  NvmlTelemetry nvml_;
};

NvmlTelemetry cpu_nvml(const std::string& library) {
  if (library.empty()) return NvmlTelemetry("no GPU: the run is on the CPU");
  NvmlOptions options;
  options.library = library;
  return NvmlTelemetry::open(options);
}

#ifdef SCALESTUDY_WITH_CUDA
constexpr bool kBuiltWithCuda = true;
Result<std::unique_ptr<DeviceRuntime>> open_cuda(int local_rank, const std::string& nvml_library) {
  return open_cuda_device(local_rank, nvml_library);
}
#else
constexpr bool kBuiltWithCuda = false;
Result<std::unique_ptr<DeviceRuntime>> open_cuda(int local_rank, const std::string&) {
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

Result<std::unique_ptr<DeviceRuntime>> open_device(DeviceKind kind, int local_rank,
                                                   const std::string& nvml_library) {
  const bool use_cuda = kind == DeviceKind::kCuda || (kind == DeviceKind::kAuto && kBuiltWithCuda &&
                                                      torch::cuda::is_available());
  if (use_cuda) return open_cuda(local_rank, nvml_library);
  return std::unique_ptr<DeviceRuntime>(std::make_unique<CpuRuntime>(cpu_nvml(nvml_library)));
}

}  // namespace scalestudy::gpu
