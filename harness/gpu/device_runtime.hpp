// DeviceRuntime: the device a rank computes on, with everything about it that differs
// between CPU and CUDA behind one narrow interface, so the driver and the training loop
// never branch on the build: the torch::Device, the phase clock (host clock or CUDA
// events), the caching allocator's memory peaks, the device's provenance, the NVML
// telemetry source, the NCCL process group and CUDA-graph capture of a step. open_device() picks
// the CPU implementation (device_runtime.cpp) or the CUDA one (cuda_device_runtime.cpp, part of
// SCALESTUDY_CUDA builds only).
// Used by the training thread; the callables of nvml() are thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "harness/core/status.hpp"
#include "harness/dist/connect.hpp"
#include "harness/gpu/nvml_telemetry.hpp"
#include "harness/metrics/phase_clock.hpp"
#include "harness/metrics/telemetry_sampler.hpp"

namespace scalestudy::gpu {

// --device: auto is cuda:<local rank> when the build has CUDA and a device is visible,
// else cpu.
enum class DeviceKind { kAuto, kCpu, kCuda };
Result<DeviceKind> parse_device_kind(std::string_view text);

// A training step captured once and replayed (see CudaGraphStep for what the step must
// satisfy).
class StepGraph {
 public:
  virtual ~StepGraph() = default;
  virtual void run() = 0;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  virtual torch::Device device() const = 0;
  // "gpu_model", "cuda_version", "nccl_version" ... as docs/run-database.md names them;
  // none for the CPU.
  virtual std::map<std::string, std::string> provenance() const = 0;
  virtual std::unique_ptr<metrics::PhaseClock> make_phase_clock() const = 0;
  // Device memory in bytes; 0 for the CPU, whose host memory is not budgeted here.
  virtual int64_t memory_capacity_bytes() const = 0;
  // Summary entries "gpu_mem_peak_bytes" (tensors) and "gpu_mem_reserved_peak_bytes"
  // (caching allocator) since reset_memory_peaks(), and their "_all_time_" twins over the
  // process so far (MemoryPeakHistory); none for the CPU.
  virtual std::map<std::string, double> memory_peaks() const = 0;
  // Starts the peaks afresh; the training loop calls it once warm-up is over.
  virtual void reset_memory_peaks() = 0;
  // The device's NVML readings: the sampler's source of a sample's gpu_* fields, the
  // energy counter, or why they are empty.
  virtual const NvmlTelemetry& nvml() const = 0;
  // The NCCL process group's factory for dist::connect (ConnectOptions::nccl_factory),
  // bound to this device; empty for the CPU.
  virtual dist::ProcessGroupFactory nccl_factory() const = 0;
  // For the all-reduce benchmark: `communicator` with its sum all-reduce issued straight to
  // NCCL (gpu/nccl_raw_allreduce.hpp) where it is an NCCL process group; null otherwise.
  // `communicator` must outlive the result.
  virtual Result<std::unique_ptr<dist::Communicator>> raw_nccl_allreduce(
      dist::Communicator& communicator) const {
    return std::unique_ptr<dist::Communicator>();
  }
  // `step` as a StepGraph: `warmup_steps` eager runs, then capture and replay; an error
  // where the device has no graphs.
  virtual Result<std::unique_ptr<StepGraph>> capture_step(std::function<void()> step,
                                                          int warmup_steps) = 0;
  // Runs `body` with the one persistent side stream current that capture_step() warms up
  // and captures on, ordered after the caller's stream and before its later work. The
  // gradient bucketer of a captured step is built in it: its gradient accumulators keep
  // the stream they were created on, and backward must run on that stream (as PyTorch
  // builds DDP on the capture stream). The CPU has no streams: `body` just runs.
  virtual void on_step_stream(const std::function<void()>& body) { body(); }
};

// Opens the device of the rank with `local_rank` (one GPU per rank, local rank modulo the
// visible devices). --device cuda fails with the reason where the build has no CUDA or no
// device is visible. `nvml_library` (--nvml-library): the NVML library to read, in place of
// the driver's; on the CPU, NVML is read only from such a library (device index 0), which
// is how the tests' stand-in for NVML reaches a CPU run.
Result<std::unique_ptr<DeviceRuntime>> open_device(DeviceKind kind, int local_rank,
                                                   const std::string& nvml_library = "");

}  // namespace scalestudy::gpu
