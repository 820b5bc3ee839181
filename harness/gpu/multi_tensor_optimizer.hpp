// MultiTensorOptimizer: what ForeachSgd and ForeachAdamW share — their parameters, the
// learning rate in a one-element tensor on the parameters' device (set_lr() overwrites it in
// place: a device write, no allocation, so a captured CUDA graph reads the new rate on its
// next replay instead of being captured again), gradients zeroed in place (never freed,
// keeping their addresses stable for graphs and gradient buckets), and a step that fp16's
// overflow flag can skip on the device.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace scalestudy::gpu {

class MultiTensorOptimizer {
 public:
  virtual ~MultiTensorOptimizer() = default;

  void step() { step_unless({}); }
  // The step, skipped on the device when the one-element `found_inf` is non-zero (fp16's
  // overflow flag; undefined: always step). A defined flag needs
  // compat::kHasFusedOptimizers.
  virtual void step_unless(const torch::Tensor& found_inf) = 0;
  void zero_grad();
  void set_lr(double lr);
  // The optimizer's state in a training checkpoint; load() copies into state tensors that
  // exist (their addresses stay, for a captured graph) and creates the others.
  virtual void save(torch::serialize::OutputArchive& archive) const = 0;
  virtual void load(torch::serialize::InputArchive& archive) = 0;
  // Bytes of the optimizer's state tensors (moments, momentum, step counts).
  virtual int64_t state_bytes() const = 0;
  double lr() const { return lr_; }
  // The rate the kernels read; its storage never changes.
  const torch::Tensor& lr_tensor() const { return lr_tensor_; }

 protected:
  MultiTensorOptimizer(std::vector<torch::Tensor> parameters, double lr);
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  // Fails (a c10::Error) for a defined `found_inf` without the fused kernels.
  static void check_device_skip_supported(const torch::Tensor& found_inf);
  // Bytes of the defined tensors of `state`.
  static int64_t bytes_of(const std::vector<torch::Tensor>& state);
  // State tensors parallel to parameters(), as "<name>_<i>" (undefined ones are skipped);
  // loading copies into defined tensors and creates the others on the parameter's device.
  static void save_state(torch::serialize::OutputArchive& archive, const std::string& name,
                         const std::vector<torch::Tensor>& state);
  void load_state(torch::serialize::InputArchive& archive, const std::string& name,
                  std::vector<torch::Tensor>& state) const;

 private:
  std::vector<torch::Tensor> parameters_;
  double lr_;
  torch::Tensor lr_tensor_;
};

}  // namespace scalestudy::gpu
