// NvmlReader: reads one GPU's utilisation, memory use, power draw, temperature, SM clock and
// clock-event (throttle) reasons, and its total energy counter, through NVML, with
// libnvidia-ml.so.1 loaded at run time (dlopen), so no build needs the driver and a CPU machine
// simply has no NVML: open() then fails with "NVML unavailable: ...", and the telemetry sampler
// records no GPU columns. The device is found by PCI bus id (what CUDA reports, immune to
// CUDA_VISIBLE_DEVICES renumbering) or else by NVML index. The clock, clock-event and energy entry
// points are optional (older drivers, GPUs before Volta lack some): without one its reading stays
// empty and missing_readings() says why. NVML is thread-safe: read() may run on a sampler thread
// while others train.
#pragma once

#include <memory>
#include <string>

#include "harness/core/status.hpp"
#include "harness/metrics/telemetry_sampler.hpp"

namespace scalestudy::gpu {

struct NvmlOptions {
  std::string library = "libnvidia-ml.so.1";
  std::string pci_bus_id;  // e.g. "0000:3B:00.0"; empty: use device_index
  unsigned device_index = 0;
};

class NvmlReader {
 public:
  static Result<std::unique_ptr<NvmlReader>> open(const NvmlOptions& options);
  ~NvmlReader();
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  // Fills the sample's gpu_* fields; a field NVML cannot report stays empty.
  void read(metrics::TelemetrySample& sample) const;
  // The device's energy counter since the driver loaded, in millijoules; an error naming
  // the entry point and NVML's answer where it cannot be read.
  Result<double> energy_mj() const;
  // "lacks nvmlDeviceGetClockInfo; ...": the optional entry points the library lacks;
  // empty when it has them all.
  const std::string& missing_readings() const { return missing_readings_; }

  struct Api;  // the resolved NVML entry points

 private:
  NvmlReader(void* library_handle, std::unique_ptr<Api> api, void* device,
             std::string missing_readings);

  void* library_handle_;
  std::unique_ptr<Api> api_;
  void* device_;  // nvmlDevice_t
  std::string missing_readings_;
};

}  // namespace scalestudy::gpu
