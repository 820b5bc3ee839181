#include "harness/gpu/foreach_sgd.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::gpu {

ForeachSgd::ForeachSgd(std::vector<torch::Tensor> parameters, ForeachSgdOptions options)
    : MultiTensorOptimizer(std::move(parameters), options.lr),
      options_(options),
      momentum_buffers_(this->parameters().size()) {}

void ForeachSgd::step_unless(const torch::Tensor& found_inf) {
  check_device_skip_supported(found_inf);
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params, grads;
  std::vector<size_t> positions;  // of params/grads in parameters()
  for (size_t i = 0; i < parameters().size(); ++i) {
    const torch::Tensor& parameter = parameters()[i];
    if (!parameter.grad().defined()) continue;
    params.push_back(parameter);
    grads.push_back(parameter.grad());
    positions.push_back(i);
  }
  if (params.empty()) return;
  if (compat::kHasFusedOptimizers) {
    fused_step(params, grads, positions, found_inf);
  } else {
    foreach_step(params, grads, positions);
  }
}

void ForeachSgd::fused_step(const std::vector<torch::Tensor>& params,
                            const std::vector<torch::Tensor>& grads,
                            const std::vector<size_t>& positions, const torch::Tensor& found_inf) {
  const ForeachSgdOptions& o = options_;
  if (o.momentum == 0.0) {
    compat::fused_sgd_(params, grads, {}, o.weight_decay, 0.0, lr_tensor(), o.dampening, o.nesterov,
                       /*is_first_step=*/false, found_inf);
    return;
  }
  // The kernel starts a buffer as the first direction when told the step is its first, so
  // parameters with and without a buffer go in separate calls (one, after the first step).
  std::vector<torch::Tensor> new_params, new_grads, new_buffers, params_rest, grads_rest,
      buffers_rest;
  for (size_t k = 0; k < positions.size(); ++k) {
    torch::Tensor& buffer = momentum_buffers_[positions[k]];
    if (!buffer.defined()) {
      buffer = torch::zeros_like(params[k]);
      new_params.push_back(params[k]);
      new_grads.push_back(grads[k]);
      new_buffers.push_back(buffer);
    } else {
      params_rest.push_back(params[k]);
      grads_rest.push_back(grads[k]);
      buffers_rest.push_back(buffer);
    }
  }
  if (!new_params.empty()) {
    compat::fused_sgd_(new_params, new_grads, new_buffers, o.weight_decay, o.momentum, lr_tensor(),
                       o.dampening, o.nesterov, /*is_first_step=*/true, found_inf);
  }
  if (!params_rest.empty()) {
    compat::fused_sgd_(params_rest, grads_rest, buffers_rest, o.weight_decay, o.momentum,
                       lr_tensor(), o.dampening, o.nesterov, /*is_first_step=*/false, found_inf);
  }
}

void ForeachSgd::foreach_step(const std::vector<torch::Tensor>& params,
                              const std::vector<torch::Tensor>& grads,
                              const std::vector<size_t>& positions) {
  std::vector<torch::Tensor> directions =
      options_.weight_decay != 0.0 ? torch::_foreach_add(grads, params, options_.weight_decay)
                                   : grads;
  if (options_.momentum != 0.0) {
    // A buffer starts as its first direction (torch::optim::SGD's rule); afterwards
    // buffer = momentum * buffer + (1 - dampening) * direction.
    std::vector<torch::Tensor> buffers, blended_buffers, blended_directions;
    for (size_t k = 0; k < positions.size(); ++k) {
      torch::Tensor& buffer = momentum_buffers_[positions[k]];
      if (!buffer.defined()) {
        buffer = directions[k].clone();
      } else {
        blended_buffers.push_back(buffer);
        blended_directions.push_back(directions[k]);
      }
      buffers.push_back(buffer);
    }
    if (!blended_buffers.empty()) {
      torch::_foreach_mul_(blended_buffers, options_.momentum);
      torch::_foreach_add_(blended_buffers, blended_directions, 1.0 - options_.dampening);
    }
    directions =
        options_.nesterov ? torch::_foreach_add(directions, buffers, options_.momentum) : buffers;
  }
  compat::foreach_sub_scaled_(params, directions, lr_tensor());
}

void ForeachSgd::save(torch::serialize::OutputArchive& archive) const {
  save_state(archive, "momentum", momentum_buffers_);
}

void ForeachSgd::load(torch::serialize::InputArchive& archive) {
  load_state(archive, "momentum", momentum_buffers_);
}

}  // namespace scalestudy::gpu
