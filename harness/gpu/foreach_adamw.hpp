// ForeachAdamW: AdamW (decoupled weight decay, bias-corrected moments) — the update rule of
// torch::optim::AdamW — applied to all parameters at once: with LibTorch ≥ 2.4 one fused
// kernel (_fused_adamw_) per step that reads the learning rate, the step counts and fp16's
// overflow flag from device tensors (no host synchronisation, skippable on the device);
// otherwise a few multi-tensor (_foreach_*) kernels (rate and zeroing:
// MultiTensorOptimizer). Parameters without a gradient in a step are left alone and keep
// their step count, as torch::optim::AdamW does.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "harness/gpu/multi_tensor_optimizer.hpp"

namespace scalestudy::gpu {

struct ForeachAdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};

class ForeachAdamW : public MultiTensorOptimizer {
 public:
  ForeachAdamW(std::vector<torch::Tensor> parameters, ForeachAdamWOptions options);

  using MultiTensorOptimizer::step;
  void step_unless(const torch::Tensor& found_inf) override;
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;
  int64_t state_bytes() const override {
    return bytes_of(exp_avgs_) + bytes_of(exp_avg_sqs_) + bytes_of(step_tensors_);
  }

 private:
  // The parameters that have a gradient this step, with their state.
  struct Selection {
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
    std::vector<size_t> positions;  // in parameters()
  };
  Selection select();
  void fused_step(const Selection& selected, const torch::Tensor& found_inf);
  void foreach_step(const Selection& selected);

  ForeachAdamWOptions options_;  // its lr is the initial rate only
  // Per parameter, created at its first gradient: the moments and the step count — a float
  // tensor on the parameter's device for the fused kernels, a host count otherwise.
  std::vector<torch::Tensor> exp_avgs_, exp_avg_sqs_, step_tensors_;
  std::vector<int64_t> host_steps_;
};

}  // namespace scalestudy::gpu
