#include "harness/gpu/foreach_adamw.hpp"

#include <cmath>

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::gpu {

ForeachAdamW::ForeachAdamW(std::vector<torch::Tensor> parameters, ForeachAdamWOptions options)
    : MultiTensorOptimizer(std::move(parameters), options.lr),
      options_(options),
      exp_avgs_(this->parameters().size()),
      exp_avg_sqs_(this->parameters().size()),
      step_tensors_(this->parameters().size()),
      host_steps_(this->parameters().size(), 0) {}

ForeachAdamW::Selection ForeachAdamW::select() {
  Selection selected;
  for (size_t i = 0; i < parameters().size(); ++i) {
    const torch::Tensor& parameter = parameters()[i];
    if (!parameter.grad().defined()) continue;
    if (!exp_avgs_[i].defined()) {
      exp_avgs_[i] = torch::zeros_like(parameter);
      exp_avg_sqs_[i] = torch::zeros_like(parameter);
    }
    if (compat::kHasFusedOptimizers && !step_tensors_[i].defined()) {
      step_tensors_[i] = torch::full({}, static_cast<double>(host_steps_[i]),
                                     parameter.options().dtype(torch::kFloat));
    }
    selected.params.push_back(parameter);
    selected.grads.push_back(parameter.grad());
    selected.exp_avgs.push_back(exp_avgs_[i]);
    selected.exp_avg_sqs.push_back(exp_avg_sqs_[i]);
    if (step_tensors_[i].defined()) selected.steps.push_back(step_tensors_[i]);
    selected.positions.push_back(i);
  }
  return selected;
}

void ForeachAdamW::step_unless(const torch::Tensor& found_inf) {
  check_device_skip_supported(found_inf);
  torch::NoGradGuard no_grad;
  Selection selected = select();
  if (selected.params.empty()) return;
  if (compat::kHasFusedOptimizers) {
    fused_step(selected, found_inf);
  } else {
    foreach_step(selected);
  }
}

void ForeachAdamW::fused_step(const Selection& selected, const torch::Tensor& found_inf) {
  // The kernel reads the step counts for bias correction but leaves advancing them to the
  // caller — and taking the advance back when the step was skipped (PyTorch's _fused_adamw).
  torch::_foreach_add_(selected.steps, 1);
  compat::fused_adamw_(selected.params, selected.grads, selected.exp_avgs, selected.exp_avg_sqs,
                       selected.steps, lr_tensor(), options_.beta1, options_.beta2,
                       options_.weight_decay, options_.eps, found_inf);
  if (found_inf.defined()) {
    const torch::Tensor skipped = found_inf.reshape({}).to(torch::kFloat);
    torch::_foreach_sub_(selected.steps,
                         std::vector<torch::Tensor>(selected.steps.size(), skipped));
  }
}

void ForeachAdamW::foreach_step(const Selection& selected) {
  const ForeachAdamWOptions& o = options_;
  if (o.weight_decay != 0.0) {
    // p *= 1 - lr * weight_decay, with the rate read from its tensor.
    compat::foreach_sub_scaled_(selected.params,
                                torch::_foreach_mul(selected.params, o.weight_decay), lr_tensor());
  }
  torch::_foreach_mul_(selected.exp_avgs, o.beta1);
  torch::_foreach_add_(selected.exp_avgs, selected.grads, 1.0 - o.beta1);
  torch::_foreach_mul_(selected.exp_avg_sqs, o.beta2);
  torch::_foreach_addcmul_(selected.exp_avg_sqs, selected.grads, selected.grads, 1.0 - o.beta2);
  // Parameters can differ in step count (some missed steps without a gradient), so the bias
  // corrections are per parameter.
  std::vector<at::Scalar> sqrt_bias_correction2, inverse_bias_correction1;
  for (size_t position : selected.positions) {
    const double step = static_cast<double>(++host_steps_[position]);
    sqrt_bias_correction2.emplace_back(std::sqrt(1.0 - std::pow(o.beta2, step)));
    inverse_bias_correction1.emplace_back(1.0 / (1.0 - std::pow(o.beta1, step)));
  }
  std::vector<torch::Tensor> denominators = torch::_foreach_sqrt(selected.exp_avg_sqs);
  torch::_foreach_div_(denominators, sqrt_bias_correction2);
  torch::_foreach_add_(denominators, o.eps);
  std::vector<torch::Tensor> updates = torch::_foreach_div(selected.exp_avgs, denominators);
  torch::_foreach_mul_(updates, inverse_bias_correction1);
  compat::foreach_sub_scaled_(selected.params, updates, lr_tensor());
}

void ForeachAdamW::save(torch::serialize::OutputArchive& archive) const {
  save_state(archive, "exp_avg", exp_avgs_);
  save_state(archive, "exp_avg_sq", exp_avg_sqs_);
  // Step counts as one host tensor, whichever form the running path keeps them in.
  torch::Tensor steps = torch::zeros({static_cast<int64_t>(host_steps_.size())}, torch::kLong);
  for (size_t i = 0; i < host_steps_.size(); ++i) {
    steps[i] = step_tensors_[i].defined() ? step_tensors_[i].item<double>()
                                          : static_cast<double>(host_steps_[i]);
  }
  archive.write("adamw_steps", steps, /*is_buffer=*/true);
}

void ForeachAdamW::load(torch::serialize::InputArchive& archive) {
  load_state(archive, "exp_avg", exp_avgs_);
  load_state(archive, "exp_avg_sq", exp_avg_sqs_);
  torch::Tensor steps;
  archive.read("adamw_steps", steps, /*is_buffer=*/true);
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < host_steps_.size() && i < static_cast<size_t>(steps.numel()); ++i) {
    host_steps_[i] = steps[i].item<int64_t>();
    if (step_tensors_[i].defined()) step_tensors_[i].fill_(static_cast<double>(host_steps_[i]));
  }
}

}  // namespace scalestudy::gpu
