// ForeachSgd: SGD with momentum, dampening, weight decay and Nesterov — the update rule of
// torch::optim::SGD — applied to all parameters at once with multi-tensor (_foreach_*)
// kernels: on CUDA a step is four or five fused launches instead of several per
// parameter, and nothing in it allocates after the first step or synchronises with the
// host, so it can be captured in a CUDA graph. zero_grad() zeroes gradients in place
// (never frees them), keeping their addresses stable for graphs and gradient buckets.
// Parameters without a gradient in a step are left alone, as torch::optim::SGD does.
// The learning rate lives in a one-element tensor on the parameters' device: set_lr()
// overwrites it in place (a device write, no allocation), so a captured CUDA graph reads
// the new rate on its next replay instead of being captured again.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace scalestudy::gpu {

struct ForeachSgdOptions {
  double lr = 0.1;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class ForeachSgd {
 public:
  ForeachSgd(std::vector<torch::Tensor> parameters, ForeachSgdOptions options);

  void step();
  void zero_grad();
  void set_lr(double lr);
  double lr() const { return options_.lr; }
  // The rate the kernels read; its storage never changes.
  const torch::Tensor& lr_tensor() const { return lr_tensor_; }
  // The momentum buffers in a training checkpoint; load() copies into buffers that exist
  // (their addresses stay, for a captured graph) and creates the others.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

 private:
  std::vector<torch::Tensor> parameters_;
  ForeachSgdOptions options_;
  torch::Tensor lr_tensor_;
  std::vector<torch::Tensor> momentum_buffers_;  // parallel to parameters_; undefined until used
};

}  // namespace scalestudy::gpu
