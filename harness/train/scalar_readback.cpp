#include "harness/train/scalar_readback.hpp"

#include <c10/core/impl/VirtualGuardImpl.h>

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::train {

ScalarReadback::ScalarReadback(const torch::Device& device)
    : device_(device),
      host_(torch::zeros({}, torch::dtype(torch::kFloat64).pinned_memory(!device.is_cpu()))) {
  if (!device.is_cpu()) copied_.emplace(device.type());
}

void ScalarReadback::start(const torch::Tensor& value) {
  torch::NoGradGuard no_grad;
  host_.copy_(value.detach().reshape({}), /*non_blocking=*/copied_.has_value());
  if (copied_) copied_->record(c10::impl::VirtualGuardImpl(device_.type()).getStream(device_));
}

double ScalarReadback::read() const {
  if (copied_) compat::wait_for_event(*copied_);
  return host_.item<double>();
}

std::optional<double> StepLossReadback::push(const torch::Tensor& loss) {
  slots_[next_].start(loss);
  std::optional<double> previous = drain();
  pending_ = true;
  next_ = 1 - next_;
  return previous;
}

std::optional<double> StepLossReadback::drain() {
  if (!pending_) return std::nullopt;
  pending_ = false;
  return slots_[1 - next_].read();
}

}  // namespace scalestudy::train
