// LossScaler: dynamic loss scaling for fp16 training, with the semantics of PyTorch's
// torch.amp.GradScaler. The loss is multiplied by the scale before backward so small
// gradients survive fp16; step() divides the gradients by the scale again, and when any
// gradient is inf or NaN it skips the optimizer step and multiplies the scale by
// backoff_factor; after growth_interval consecutive clean steps it multiplies the scale by
// growth_factor. On CUDA the check and the division are one fused multi-tensor kernel
// (_amp_foreach_non_finite_check_and_unscale_); other devices use composite tensor ops.
// Reading the inf flag is the step's one host synchronisation, as in GradScaler.
// In data-parallel runs call step() after the gradient all-reduce: every rank then sees
// the same gradients and takes the same decision.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace scalestudy::gpu {

struct LossScalerOptions {
  double initial_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

class LossScaler {
 public:
  explicit LossScaler(LossScalerOptions options = {});

  // loss * scale, to call backward on.
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Unscales `gradients` in place (every one, even when the step is skipped), runs
  // `optimizer_step` unless one of them held inf/NaN, then updates the scale. Returns
  // whether the optimizer step ran. Undefined tensors in `gradients` are ignored.
  bool step(const std::vector<torch::Tensor>& gradients,
            const std::function<void()>& optimizer_step);

  double scale_value() const { return scale_; }
  // Clean steps since the scale last changed.
  int64_t growth_tracker() const { return growth_tracker_; }
  int64_t skipped_steps() const { return skipped_steps_; }
  // Continues from a checkpoint's values of the three above.
  void restore(double scale, int64_t growth_tracker, int64_t skipped_steps) {
    scale_ = scale;
    growth_tracker_ = growth_tracker;
    skipped_steps_ = skipped_steps;
  }

 private:
  // Divides by the scale in place; true when some gradient is not finite.
  bool unscale_and_check(const std::vector<torch::Tensor>& gradients) const;
  void update(bool found_non_finite);

  LossScalerOptions options_;
  double scale_;
  int64_t growth_tracker_ = 0;
  int64_t skipped_steps_ = 0;
};

}  // namespace scalestudy::gpu
