#include "harness/gpu/loss_scaler.hpp"

namespace scalestudy::gpu {

LossScaler::LossScaler(LossScalerOptions options)
    : options_(options), start_{options.initial_scale, 0, 0} {}

void LossScaler::ensure_state(const torch::Device& device) {
  if (scale_.defined()) return;
  const auto on_device = torch::TensorOptions().device(device);
  scale_ = torch::full({}, start_.scale, on_device.dtype(torch::kFloat));
  growth_tracker_ = torch::full({}, start_.growth_tracker, on_device.dtype(torch::kInt));
  skipped_steps_ =
      torch::full({}, static_cast<double>(start_.skipped_steps), on_device.dtype(torch::kFloat));
}

void LossScaler::restore(double scale, int64_t growth_tracker, int64_t skipped_steps) {
  start_ = {scale, growth_tracker, skipped_steps};
  if (!scale_.defined()) return;
  torch::NoGradGuard no_grad;
  scale_.fill_(scale);
  growth_tracker_.fill_(growth_tracker);
  skipped_steps_.fill_(static_cast<double>(skipped_steps));
}

torch::Tensor LossScaler::scale(const torch::Tensor& loss) {
  ensure_state(loss.device());
  return loss * scale_;
}

torch::Tensor LossScaler::unscale(const std::vector<torch::Tensor>& gradients) {
  std::vector<torch::Tensor> defined;
  defined.reserve(gradients.size());
  for (const torch::Tensor& gradient : gradients) {
    if (gradient.defined()) defined.push_back(gradient);
  }
  const torch::Device device =
      defined.empty() ? (scale_.defined() ? scale_.device() : torch::Device(torch::kCPU))
                      : defined.front().device();
  ensure_state(device);
  torch::NoGradGuard no_grad;
  torch::Tensor found_non_finite = torch::zeros({1}, scale_.options());
  if (defined.empty()) return found_non_finite;
  const torch::Tensor inverse_scale = scale_.reciprocal().reshape({1});
  if (device.is_cuda()) {
    // CUDA kernels in LibTorch 1.13 and 2.x; CPU kernels came only in 2.3.
    at::_amp_foreach_non_finite_check_and_unscale_(defined, found_non_finite, inverse_scale);
  } else {
    for (const torch::Tensor& gradient : defined) {
      found_non_finite.logical_or_(torch::isfinite(gradient).all().logical_not());
    }
    for (const torch::Tensor& gradient : defined) gradient.mul_(inverse_scale);
  }
  return found_non_finite;
}

void LossScaler::update(const torch::Tensor& found_inf) {
  ensure_state(found_inf.device());
  torch::NoGradGuard no_grad;
  skipped_steps_.add_(found_inf.reshape({}));
  if (scale_.is_cuda()) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf, options_.growth_factor,
                           options_.backoff_factor, options_.growth_interval);
    return;
  }
  // _amp_update_scale_'s rule in composite ops.
  const torch::Tensor found = found_inf.reshape({}).ne(0);
  const torch::Tensor clean_run = growth_tracker_ + 1;
  const torch::Tensor grow =
      clean_run.eq(options_.growth_interval).logical_and(found.logical_not());
  const torch::Tensor new_scale =
      torch::where(found, scale_ * options_.backoff_factor,
                   torch::where(grow, scale_ * options_.growth_factor, scale_));
  scale_.copy_(new_scale);
  growth_tracker_.copy_(
      torch::where(found.logical_or(grow), torch::zeros_like(clean_run), clean_run));
}

bool LossScaler::step(const std::vector<torch::Tensor>& gradients,
                      const std::function<void()>& optimizer_step) {
  const torch::Tensor found_inf = unscale(gradients);
  const bool clean = found_inf.item<float>() == 0.0f;
  if (clean) optimizer_step();
  update(found_inf);
  return clean;
}

double LossScaler::scale_value() const {
  return scale_.defined() ? scale_.item<double>() : start_.scale;
}

int64_t LossScaler::growth_tracker() const {
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : start_.growth_tracker;
}

int64_t LossScaler::skipped_steps() const {
  return skipped_steps_.defined() ? static_cast<int64_t>(skipped_steps_.item<double>())
                                  : start_.skipped_steps;
}

}  // namespace scalestudy::gpu
