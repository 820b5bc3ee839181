#include "harness/gpu/cuda_device_runtime.hpp"

#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "harness/gpu/cuda_device.hpp"
#include "harness/gpu/cuda_event_clock.hpp"
#include "harness/gpu/cuda_graph_step.hpp"
#include "harness/gpu/nccl_process_group.hpp"
#include "harness/gpu/nccl_raw_allreduce.hpp"
#include "harness/gpu/nvml_reader.hpp"
#include "harness/gpu/runtime_versions.hpp"

namespace scalestudy::gpu {
namespace {

// What the process loaded, against what this file was compiled with.
RuntimeVersions loaded_runtime_versions() {
  RuntimeVersions versions;
  versions.cuda_built = CUDART_VERSION;
  versions.nccl_built = NCCL_VERSION_CODE;
  cudaRuntimeGetVersion(&versions.cuda_loaded);
  cudaDriverGetVersion(&versions.cuda_driver);
  ncclGetVersion(&versions.nccl_loaded);
  return versions;
}

class GraphedStep : public StepGraph {
 public:
  GraphedStep(std::function<void()> step, int warmup_steps, c10::cuda::CUDAStream stream)
      : graph_(std::move(step), warmup_steps, stream) {}
  void run() override { graph_.run(); }

 private:
  CudaGraphStep graph_;
};

class CudaRuntime : public DeviceRuntime {
 public:
  CudaRuntime(CudaDeviceInfo info, NvmlTelemetry nvml)
      : info_(std::move(info)),
        step_stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false,
                                                  static_cast<c10::DeviceIndex>(info_.index))),
        nvml_(std::move(nvml)) {}

  torch::Device device() const override {
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(info_.index));
  }

  std::map<std::string, std::string> provenance() const override {
    int device_count = 0;
    cudaGetDeviceCount(&device_count);
    std::map<std::string, std::string> entries = {
        {"gpu_model", info_.name},
        {"gpu_count", std::to_string(device_count)},
        {"gpu_pci_bus_id", info_.pci_bus_id},
        {"gpu_compute_capability",
         std::to_string(info_.compute_major) + "." + std::to_string(info_.compute_minor)},
        {"gpu_memory_bytes", std::to_string(info_.total_memory_bytes)},
        {"cudnn_version", std::to_string(at::detail::getCUDAHooks().versionCuDNN())},
        {"nvml", nvml_.sampled() ? "sampled" : nvml_.unavailable()},
    };
    entries.merge(runtime_version_provenance(loaded_runtime_versions()));
    return entries;
  }

  std::unique_ptr<metrics::PhaseClock> make_phase_clock() const override {
    return std::make_unique<CudaEventPhaseClock>();
  }
  int64_t memory_capacity_bytes() const override { return info_.total_memory_bytes; }
  std::map<std::string, double> memory_peaks() const override {
    return peak_history_.summary(cuda_memory_peaks(info_.index));
  }
  void reset_memory_peaks() override {
    peak_history_.before_reset(cuda_memory_peaks(info_.index));
    reset_cuda_memory_peaks(info_.index);
  }

  const NvmlTelemetry& nvml() const override { return nvml_; }

  dist::ProcessGroupFactory nccl_factory() const override {
    return [device = device()](const dist::RankInfo& rank_info, const dist::ConnectOptions& options,
                               const c10::intrusive_ptr<c10d::Store>& store) {
      return make_nccl_process_group(device, rank_info, options, store);
    };
  }
  Result<std::unique_ptr<dist::Communicator>> raw_nccl_allreduce(
      dist::Communicator& communicator) const override {
    return gpu::raw_nccl_allreduce(communicator);
  }

  Result<std::unique_ptr<StepGraph>> capture_step(std::function<void()> step,
                                                  int warmup_steps) override {
    return std::unique_ptr<StepGraph>(
        std::make_unique<GraphedStep>(std::move(step), warmup_steps, step_stream_));
  }
  void on_step_stream(const std::function<void()>& body) override {
    run_on_stream(step_stream_, body);
  }

 private:
  CudaDeviceInfo info_;
  c10::cuda::CUDAStream step_stream_;  // of every captured step, taken once
  NvmlTelemetry nvml_;
  MemoryPeakHistory peak_history_;
};

}  // namespace

Result<std::unique_ptr<DeviceRuntime>> open_cuda_device(int local_rank,
                                                        const std::string& nvml_library) {
  Result<CudaDeviceInfo> info = select_cuda_device(local_rank);
  if (!info) return info.status().with_context("--device cuda");
  if (Status matched = check_runtime_versions(loaded_runtime_versions()); !matched) {
    return matched.with_context("--device cuda");
  }
  NvmlOptions options;
  if (!nvml_library.empty()) options.library = nvml_library;
  options.pci_bus_id = info->pci_bus_id;
  NvmlTelemetry nvml = NvmlTelemetry::open(options);
  return std::unique_ptr<DeviceRuntime>(
      std::make_unique<CudaRuntime>(std::move(*info), std::move(nvml)));
}

}  // namespace scalestudy::gpu
