#include "harness/gpu/cuda_device_runtime.hpp"

#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>

#include "harness/gpu/cuda_device.hpp"
#include "harness/gpu/cuda_event_clock.hpp"
#include "harness/gpu/cuda_graph_step.hpp"
#include "harness/gpu/nccl_communicator.hpp"
#include "harness/gpu/nvml_reader.hpp"

namespace scalestudy::gpu {
namespace {

// CUDA encodes versions as major * 1000 + minor * 10.
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

class GraphedStep : public StepGraph {
 public:
  GraphedStep(std::function<void()> step, int warmup_steps)
      : graph_(std::move(step), warmup_steps) {}
  void run() override { graph_.run(); }
  void invalidate() override { graph_.invalidate(); }

 private:
  CudaGraphStep graph_;
};

class CudaRuntime : public DeviceRuntime {
 public:
  explicit CudaRuntime(CudaDeviceInfo info) : info_(std::move(info)) {
    NvmlOptions options;
    options.pci_bus_id = info_.pci_bus_id;
    auto nvml = NvmlReader::open(options);
    if (nvml) {
      nvml_ = std::shared_ptr<NvmlReader>(std::move(*nvml));
    } else {
      nvml_status_ = nvml.status().message();
    }
  }

  torch::Device device() const override {
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(info_.index));
  }

  std::map<std::string, std::string> provenance() const override {
    int runtime_version = 0, driver_version = 0, device_count = 0;
    cudaRuntimeGetVersion(&runtime_version);
    cudaDriverGetVersion(&driver_version);
    cudaGetDeviceCount(&device_count);
    std::map<std::string, std::string> entries = {
        {"gpu_model", info_.name},
        {"gpu_count", std::to_string(device_count)},
        {"gpu_pci_bus_id", info_.pci_bus_id},
        {"gpu_compute_capability",
         std::to_string(info_.compute_major) + "." + std::to_string(info_.compute_minor)},
        {"gpu_memory_bytes", std::to_string(info_.total_memory_bytes)},
        {"cuda_version", cuda_version_text(runtime_version)},
        {"cuda_driver_version", cuda_version_text(driver_version)},
        {"cudnn_version", std::to_string(at::detail::getCUDAHooks().versionCuDNN())},
        {"nvml", nvml_ ? "sampled" : nvml_status_},
    };
    // nccl_settings() leads with the library version; the NCCL_* variables after it are
    // already recorded as env.NCCL_*.
    entries.insert(nccl_settings().front());
    return entries;
  }

  std::unique_ptr<metrics::PhaseClock> make_phase_clock() const override {
    return std::make_unique<CudaEventPhaseClock>();
  }
  int64_t memory_capacity_bytes() const override { return info_.total_memory_bytes; }
  std::map<std::string, double> memory_peaks() const override {
    const CudaMemoryPeaks peaks = cuda_memory_peaks(info_.index);
    return {{"gpu_mem_peak_bytes", static_cast<double>(peaks.allocated_bytes)},
            {"gpu_mem_reserved_peak_bytes", static_cast<double>(peaks.reserved_bytes)}};
  }

  metrics::TelemetrySource telemetry_source() const override {
    if (!nvml_) return nullptr;
    return [reader = nvml_](metrics::TelemetrySample& sample) { reader->read(sample); };
  }

  Result<std::unique_ptr<StepGraph>> capture_step(std::function<void()> step,
                                                  int warmup_steps) override {
    return std::unique_ptr<StepGraph>(std::make_unique<GraphedStep>(std::move(step), warmup_steps));
  }

 private:
  CudaDeviceInfo info_;
  std::shared_ptr<NvmlReader> nvml_;  // shared with the sampler thread's callable
  std::string nvml_status_;
};

}  // namespace

Result<std::unique_ptr<DeviceRuntime>> open_cuda_device(int local_rank) {
  Result<CudaDeviceInfo> info = select_cuda_device(local_rank);
  if (!info) return info.status().with_context("--device cuda");
  return std::unique_ptr<DeviceRuntime>(std::make_unique<CudaRuntime>(std::move(*info)));
}

}  // namespace scalestudy::gpu
