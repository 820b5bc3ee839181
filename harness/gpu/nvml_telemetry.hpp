// NvmlTelemetry: a rank's NVML readings as the driver consumes them (the sampler's source,
// the energy counter), or why there are none. Both DeviceRuntimes hold one: the CUDA one
// opens its GPU's NVML; the CPU one only a library named by --nvml-library (the tests'
// stand-in). Thread-safe, as NvmlReader.
#pragma once

#include <memory>
#include <string>

#include "harness/gpu/nvml_reader.hpp"
#include "harness/metrics/energy_log.hpp"
#include "harness/metrics/telemetry_sampler.hpp"

namespace scalestudy::gpu {

class NvmlTelemetry {
 public:
  // Opens NVML; where it cannot, the readings are empty and unavailable() says why.
  static NvmlTelemetry open(const NvmlOptions& options);
  // No readings, for `reason`.
  explicit NvmlTelemetry(std::string reason) : unavailable_(std::move(reason)) {}

  metrics::TelemetrySource source() const;
  metrics::EnergyCounter energy_counter() const;
  bool sampled() const { return reader_ != nullptr; }
  // Why readings are empty: NVML's reason, or the optional entry points its library lacks;
  // "" when every reading is there.
  const std::string& unavailable() const { return unavailable_; }

 private:
  NvmlTelemetry(std::shared_ptr<NvmlReader> reader, std::string unavailable)
      : reader_(std::move(reader)), unavailable_(std::move(unavailable)) {}

  std::shared_ptr<NvmlReader> reader_;  // shared with the sampler thread's callable
  std::string unavailable_;
};

}  // namespace scalestudy::gpu
