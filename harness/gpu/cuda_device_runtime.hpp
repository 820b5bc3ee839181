// The CUDA DeviceRuntime: the rank's GPU chosen by local rank (select_cuda_device), phase
// times from CUDA events, peaks from the caching allocator, NVML telemetry for the same
// device found by PCI bus id (when libnvidia-ml loads; its absence is recorded in the
// provenance, not an error) and steps captured as CUDA graphs. Defined only in
// SCALESTUDY_CUDA builds; open_device() is the way in. Thread-safety: as DeviceRuntime.
#pragma once

#include <memory>

#include "harness/core/status.hpp"
#include "harness/gpu/device_runtime.hpp"

namespace scalestudy::gpu {

// `nvml_library`: as open_device's; empty: the driver's.
Result<std::unique_ptr<DeviceRuntime>> open_cuda_device(int local_rank,
                                                        const std::string& nvml_library);

}  // namespace scalestudy::gpu
