// MixedPrecision: the training loop's precision hooks, applied around every task's forward
// and backward so a TrainingTask gets them without writing any: autocast of the forward
// pass and the loss (fp16 / bf16 on the run's device type; nothing for fp32 / tf32) and,
// for fp16, dynamic loss scaling — backward on the scaled loss, then, after the gradient
// all-reduce, unscaling, skip-on-inf/NaN and the scale update of gpu::LossScaler: decided
// on the device when the optimizer can skip itself there (fused kernels), so an fp16 step
// never waits for the host, and on the host otherwise.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/gpu/loss_scaler.hpp"
#include "harness/gpu/precision.hpp"

namespace scalestudy::train {

class MixedPrecision {
 public:
  MixedPrecision(gpu::Precision precision, c10::DeviceType device_type);

  gpu::Precision precision() const { return precision_; }
  // Autocast for the returned scope's lifetime; `cache_casts` false while a CUDA graph
  // captures.
  gpu::AutocastScope autocast(bool cache_casts = true) const {
    return gpu::AutocastScope(precision_, device_type_, cache_casts);
  }
  // Backward on the loss, scaled when loss scaling is on.
  void backward(const torch::Tensor& loss);
  // Runs `optimizer_step` unless loss scaling found an inf/NaN gradient among
  // `parameters` (call after the all-reduce, so every rank decides alike); returns
  // whether it ran. Reads the decision on the host.
  bool step(const std::vector<torch::Tensor>& parameters,
            const std::function<void()>& optimizer_step);
  // The same without a host synchronisation: `optimizer_step_unless` receives the
  // overflow flag as a device tensor (undefined without loss scaling) and must skip itself
  // when it is non-zero.
  void step_on_device(const std::vector<torch::Tensor>& parameters,
                      const std::function<void(const torch::Tensor&)>& optimizer_step_unless);
  // "loss_scale" and "loss_scale_skipped_steps" with loss scaling; nothing otherwise.
  std::map<std::string, double> summary() const;
  // The loss scaler's state in a training checkpoint (nothing without loss scaling).
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

 private:
  gpu::Precision precision_;
  c10::DeviceType device_type_;
  std::optional<gpu::LossScaler> scaler_;
};

}  // namespace scalestudy::train
