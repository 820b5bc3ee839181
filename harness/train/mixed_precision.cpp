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

void MixedPrecision::save(torch::serialize::OutputArchive& archive) const {
  if (!scaler_) return;
  archive.write("loss_scale", c10::IValue(scaler_->scale_value()));
  archive.write("loss_scale_growth_tracker", c10::IValue(scaler_->growth_tracker()));
  archive.write("loss_scale_skipped_steps", c10::IValue(scaler_->skipped_steps()));
}

void MixedPrecision::load(torch::serialize::InputArchive& archive) {
  if (!scaler_) return;
  c10::IValue scale, growth_tracker, skipped_steps;
  archive.read("loss_scale", scale);
  archive.read("loss_scale_growth_tracker", growth_tracker);
  archive.read("loss_scale_skipped_steps", skipped_steps);
  scaler_->restore(scale.toDouble(), growth_tracker.toInt(), skipped_steps.toInt());
}

}  // namespace scalestudy::train
