// LossScaler: dynamic loss scaling for fp16 training, with the semantics of PyTorch's
// torch.amp.GradScaler. The loss is multiplied by the scale before backward so small
// gradients survive fp16; the gradients are divided by the scale again before the update,
// and when any gradient is inf or NaN the optimizer step is skipped and the scale
// multiplied by backoff_factor; after growth_interval consecutive clean steps it is
// multiplied by growth_factor.
// The scale, the run of clean steps and the count of skipped steps live in one-element
// tensors on the training device (created at first use), so the scaler can run without
// any host synchronisation: unscale() returns the overflow flag as a device tensor for a
// fused optimizer that skips itself (MultiTensorOptimizer::step_unless), and update()
// advances the scale from it. step() is the host-deciding form for optimizers that cannot
// skip on the device: it reads the flag (one synchronisation, as GradScaler does).
// On CUDA the check-and-divide and the update are single kernels
// (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_); other devices use
// composite tensor ops.
// In data-parallel runs unscale after the gradient all-reduce: every rank then sees the
// same gradients and takes the same decision.
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
  torch::Tensor scale(const torch::Tensor& loss);
  // Divides `gradients` by the scale in place (undefined ones are ignored) and returns a
  // one-element float tensor on their device: non-zero when one of them held inf/NaN.
  torch::Tensor unscale(const std::vector<torch::Tensor>& gradients);
  // After the optimizer step unscale()'s flag guarded: backs off or grows the scale and
  // counts a skipped step, all on the device.
  void update(const torch::Tensor& found_inf);
  // unscale(), then `optimizer_step` unless the flag (read on the host) is set, then
  // update(). Returns whether the optimizer step ran.
  bool step(const std::vector<torch::Tensor>& gradients,
            const std::function<void()>& optimizer_step);

  // Host reads of the device state (each a synchronisation: for summaries, not per step).
  double scale_value() const;
  // Clean steps since the scale last changed.
  int64_t growth_tracker() const;
  int64_t skipped_steps() const;
  // Continues from a checkpoint's values of the three above (on the training device once
  // it is known).
  void restore(double scale, int64_t growth_tracker, int64_t skipped_steps);

 private:
  void ensure_state(const torch::Device& device);

  // The values the device state starts from: the options', or a checkpoint's.
  struct Start {
    double scale = 0;
    int64_t growth_tracker = 0, skipped_steps = 0;
  };

  LossScalerOptions options_;
  Start start_;
  torch::Tensor scale_;           // 0-dim float
  torch::Tensor growth_tracker_;  // 0-dim int32, as _amp_update_scale_ wants it
  torch::Tensor skipped_steps_;   // 0-dim float
};

}  // namespace scalestudy::gpu
