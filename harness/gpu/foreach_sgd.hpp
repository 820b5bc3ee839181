// ForeachSgd: SGD with momentum, dampening, weight decay and Nesterov — the update rule of
// torch::optim::SGD — applied to all parameters at once: with LibTorch ≥ 2.4 one fused
// kernel (_fused_sgd_) per step, otherwise a few multi-tensor (_foreach_*) kernels. Nothing
// in a step allocates after the first one or synchronises with the host, so it can be
// captured in a CUDA graph (rate and zeroing: MultiTensorOptimizer).
// Parameters without a gradient in a step are left alone, as torch::optim::SGD does.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "harness/gpu/multi_tensor_optimizer.hpp"

namespace scalestudy::gpu {

struct ForeachSgdOptions {
  double lr = 0.1;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class ForeachSgd : public MultiTensorOptimizer {
 public:
  ForeachSgd(std::vector<torch::Tensor> parameters, ForeachSgdOptions options);

  using MultiTensorOptimizer::step;
  void step_unless(const torch::Tensor& found_inf) override;
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;
  int64_t state_bytes() const override { return bytes_of(momentum_buffers_); }

 private:
  void fused_step(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                  const std::vector<size_t>& positions, const torch::Tensor& found_inf);
  void foreach_step(const std::vector<torch::Tensor>& params,
                    const std::vector<torch::Tensor>& grads, const std::vector<size_t>& positions);

  ForeachSgdOptions options_;                    // its lr is the initial rate only
  std::vector<torch::Tensor> momentum_buffers_;  // parallel to parameters_; undefined until used
};

}  // namespace scalestudy::gpu
