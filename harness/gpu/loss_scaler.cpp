#include "harness/gpu/loss_scaler.hpp"

namespace scalestudy::gpu {

LossScaler::LossScaler(LossScalerOptions options)
    : options_(options), scale_(options.initial_scale) {}

torch::Tensor LossScaler::scale(const torch::Tensor& loss) const {
  return loss * scale_;
}

bool LossScaler::unscale_and_check(const std::vector<torch::Tensor>& gradients) const {
  std::vector<torch::Tensor> defined;
  defined.reserve(gradients.size());
  for (const torch::Tensor& gradient : gradients) {
    if (gradient.defined()) defined.push_back(gradient);
  }
  if (defined.empty()) return false;
  const torch::Device device = defined.front().device();
  const auto flag_options = torch::TensorOptions().dtype(torch::kFloat).device(device);
  torch::Tensor found_non_finite = torch::zeros({1}, flag_options);
  torch::NoGradGuard no_grad;
  if (device.is_cuda()) {
    // Both ops have CUDA kernels in LibTorch 1.13 and 2.x; CPU kernels came only in 2.3.
    const torch::Tensor inverse_scale = torch::full({1}, 1.0 / scale_, flag_options);
    at::_amp_foreach_non_finite_check_and_unscale_(defined, found_non_finite, inverse_scale);
  } else {
    for (const torch::Tensor& gradient : defined) {
      found_non_finite.logical_or_(torch::isfinite(gradient).all().logical_not());
    }
    torch::_foreach_mul_(defined, 1.0 / scale_);
  }
  return found_non_finite.item<float>() != 0.0f;
}

void LossScaler::update(bool found_non_finite) {
  if (found_non_finite) {
    scale_ *= options_.backoff_factor;
    growth_tracker_ = 0;
    return;
  }
  if (++growth_tracker_ == options_.growth_interval) {
    scale_ *= options_.growth_factor;
    growth_tracker_ = 0;
  }
}

bool LossScaler::step(const std::vector<torch::Tensor>& gradients,
                      const std::function<void()>& optimizer_step) {
  const bool found_non_finite = unscale_and_check(gradients);
  if (found_non_finite) {
    ++skipped_steps_;
  } else {
    optimizer_step();
  }
  update(found_non_finite);
  return !found_non_finite;
}

}  // namespace scalestudy::gpu
