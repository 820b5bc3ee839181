#include "harness/gpu/foreach_sgd.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::gpu {

ForeachSgd::ForeachSgd(std::vector<torch::Tensor> parameters, ForeachSgdOptions options)
    : parameters_(std::move(parameters)),
      options_(options),
      lr_tensor_(torch::full({}, options.lr,
                             parameters_.empty() ? torch::TensorOptions(torch::kFloat)
                                                 : parameters_.front().options())),
      momentum_buffers_(parameters_.size()) {}

void ForeachSgd::set_lr(double lr) {
  if (lr == options_.lr) return;
  options_.lr = lr;
  torch::NoGradGuard no_grad;
  lr_tensor_.fill_(lr);
}

void ForeachSgd::step() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params, grads;
  std::vector<size_t> positions;  // of params/grads in parameters_
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!parameters_[i].grad().defined()) continue;
    params.push_back(parameters_[i]);
    grads.push_back(parameters_[i].grad());
    positions.push_back(i);
  }
  if (params.empty()) return;
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
  compat::foreach_sub_scaled_(params, directions, lr_tensor_);
}

void ForeachSgd::save(torch::serialize::OutputArchive& archive) const {
  for (size_t i = 0; i < momentum_buffers_.size(); ++i) {
    if (momentum_buffers_[i].defined()) {
      archive.write("momentum_" + std::to_string(i), momentum_buffers_[i], /*is_buffer=*/true);
    }
  }
}

void ForeachSgd::load(torch::serialize::InputArchive& archive) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < momentum_buffers_.size(); ++i) {
    torch::Tensor saved;
    if (!archive.try_read("momentum_" + std::to_string(i), saved, /*is_buffer=*/true)) continue;
    torch::Tensor& buffer = momentum_buffers_[i];
    if (buffer.defined()) {
      buffer.copy_(saved);
    } else {
      buffer = saved.to(parameters_[i].device()).clone();
    }
  }
}

void ForeachSgd::zero_grad() {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& parameter : parameters_) {
    if (parameter.grad().defined()) grads.push_back(parameter.grad());
  }
  if (!grads.empty()) torch::_foreach_zero_(grads);
}

}  // namespace scalestudy::gpu
