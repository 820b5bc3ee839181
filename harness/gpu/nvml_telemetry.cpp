#include "harness/gpu/nvml_telemetry.hpp"

namespace scalestudy::gpu {

NvmlTelemetry NvmlTelemetry::open(const NvmlOptions& options) {
  auto reader = NvmlReader::open(options);
  if (!reader) return NvmlTelemetry(reader.status().message());
  std::shared_ptr<NvmlReader> shared = std::move(*reader);
  std::string missing = shared->missing_readings();
  if (!missing.empty()) missing = options.library + " " + missing;
  return NvmlTelemetry(std::move(shared), std::move(missing));
}

metrics::TelemetrySource NvmlTelemetry::source() const {
  if (!reader_) return nullptr;
  return [reader = reader_](metrics::TelemetrySample& sample) { reader->read(sample); };
}

metrics::EnergyCounter NvmlTelemetry::energy_counter() const {
  if (!reader_) return nullptr;
  return [reader = reader_]() { return reader->energy_mj(); };
}

}  // namespace scalestudy::gpu
