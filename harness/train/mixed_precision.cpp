#include "harness/train/mixed_precision.hpp"

namespace scalestudy::train {

MixedPrecision::MixedPrecision(gpu::Precision precision, c10::DeviceType device_type)
    : precision_(precision), device_type_(device_type) {
  if (gpu::needs_loss_scaling(precision)) scaler_.emplace();
}

void MixedPrecision::backward(const torch::Tensor& loss) {
  if (scaler_) {
    scaler_->scale(loss).backward();
  } else {
    loss.backward();
  }
}

namespace {

std::vector<torch::Tensor> gradients_of(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> gradients;
  gradients.reserve(parameters.size());
  for (const torch::Tensor& parameter : parameters) gradients.push_back(parameter.grad());
  return gradients;
}

}  // namespace

bool MixedPrecision::step(const std::vector<torch::Tensor>& parameters,
                          const std::function<void()>& optimizer_step) {
  if (!scaler_) {
    optimizer_step();
    return true;
  }
  return scaler_->step(gradients_of(parameters), optimizer_step);
}

void MixedPrecision::step_on_device(
    const std::vector<torch::Tensor>& parameters,
    const std::function<void(const torch::Tensor&)>& optimizer_step_unless) {
  if (!scaler_) {
    optimizer_step_unless(torch::Tensor());
    return;
  }
  const torch::Tensor found_inf = scaler_->unscale(gradients_of(parameters));
  optimizer_step_unless(found_inf);
  scaler_->update(found_inf);
}

std::map<std::string, double> MixedPrecision::summary() const {
  if (!scaler_) return {};
  return {{"loss_scale", scaler_->scale_value()},
          {"loss_scale_skipped_steps", static_cast<double>(scaler_->skipped_steps())}};
}

}  // namespace scalestudy::train
