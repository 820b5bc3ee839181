// Datasheet dense peaks: the TFLOPS a device's vendor gives for dense matrix math (never
// the "with sparsity" figure, which doubles it), per training precision, for MFU. A device
// is looked up by its CUDA name (the run database's provenance `gpu_model`, "NVIDIA H100
// 80GB HBM3"); a device the table does not know, and a CPU, have no peak: the report says
// so rather than borrow another device's figure. Pure functions over a constant table.
#pragma once

#include <optional>
#include <string>

namespace scalestudy::results {

struct DevicePeak {
  std::string device;  // the table's name for it: "H100 SXM", "A100"
  double tflops = 0;   // dense, at the asked precision
};

// `precision`: fp32 | tf32 | fp16 | bf16 (the train workload's --precision). Nullopt for
// an unknown device, or a precision the device has no tensor-core path for (V100 bf16).
std::optional<DevicePeak> datasheet_dense_peak(const std::string& gpu_model,
                                               const std::string& precision);

}  // namespace scalestudy::results
