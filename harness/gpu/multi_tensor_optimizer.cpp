#include "harness/gpu/multi_tensor_optimizer.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::gpu {

MultiTensorOptimizer::MultiTensorOptimizer(std::vector<torch::Tensor> parameters, double lr)
    : parameters_(std::move(parameters)),
      lr_(lr),
      lr_tensor_(torch::full({}, lr,
                             parameters_.empty() ? torch::TensorOptions(torch::kFloat)
                                                 : parameters_.front().options())) {}

void MultiTensorOptimizer::set_lr(double lr) {
  if (lr == lr_) return;
  lr_ = lr;
  torch::NoGradGuard no_grad;
  lr_tensor_.fill_(lr);
}

void MultiTensorOptimizer::zero_grad() {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& parameter : parameters_) {
    if (parameter.grad().defined()) grads.push_back(parameter.grad());
  }
  if (!grads.empty()) torch::_foreach_zero_(grads);
}

void MultiTensorOptimizer::check_device_skip_supported(const torch::Tensor& found_inf) {
  TORCH_CHECK(!found_inf.defined() || compat::kHasFusedOptimizers,
              "a device-side skip needs the fused optimizer kernels (LibTorch 2.4 or newer)");
}

void MultiTensorOptimizer::save_state(torch::serialize::OutputArchive& archive,
                                      const std::string& name,
                                      const std::vector<torch::Tensor>& state) {
  for (size_t i = 0; i < state.size(); ++i) {
    if (state[i].defined()) {
      archive.write(name + "_" + std::to_string(i), state[i], /*is_buffer=*/true);
    }
  }
}

void MultiTensorOptimizer::load_state(torch::serialize::InputArchive& archive,
                                      const std::string& name,
                                      std::vector<torch::Tensor>& state) const {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < state.size(); ++i) {
    torch::Tensor saved;
    if (!archive.try_read(name + "_" + std::to_string(i), saved, /*is_buffer=*/true)) continue;
    if (state[i].defined()) {
      state[i].copy_(saved);
    } else {
      state[i] = saved.to(parameters_[i].device()).clone();
    }
  }
}

int64_t MultiTensorOptimizer::bytes_of(const std::vector<torch::Tensor>& state) {
  int64_t bytes = 0;
  for (const torch::Tensor& tensor : state) {
    if (tensor.defined()) bytes += tensor.numel() * static_cast<int64_t>(tensor.element_size());
  }
  return bytes;
}

}  // namespace scalestudy::gpu
