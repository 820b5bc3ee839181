#include "harness/optim/optimizer_factory.hpp"

namespace scalestudy::optim {

Result<OptimizerKind> parse_optimizer_kind(const std::string& name) {
  if (name == "sgd") return OptimizerKind::kSgd;
  if (name == "adamw") return OptimizerKind::kAdamW;
  return Status::error("unknown optimizer '" + name + "'; valid: sgd, adamw");
}

Result<std::unique_ptr<torch::optim::Optimizer>> make_optimizer(
    const std::vector<torch::Tensor>& parameters, const OptimizerConfig& config) {
  if (!(config.lr >= 0) || !(config.weight_decay >= 0)) {
    return Status::error("optimizer: lr and weight_decay must be >= 0");
  }
  if (config.kind == OptimizerKind::kSgd) {
    if (config.momentum < 0) return Status::error("optimizer: momentum must be >= 0");
    if (config.nesterov && config.momentum <= 0) {
      return Status::error("optimizer: nesterov needs momentum > 0");
    }
    return std::unique_ptr<torch::optim::Optimizer>(
        std::make_unique<torch::optim::SGD>(parameters, torch::optim::SGDOptions(config.lr)
                                                            .momentum(config.momentum)
                                                            .nesterov(config.nesterov)
                                                            .weight_decay(config.weight_decay)));
  }
  if (!(config.beta1 >= 0 && config.beta1 < 1 && config.beta2 >= 0 && config.beta2 < 1) ||
      !(config.eps > 0)) {
    return Status::error("optimizer: AdamW needs betas in [0, 1) and eps > 0");
  }
  return std::unique_ptr<torch::optim::Optimizer>(
      std::make_unique<torch::optim::AdamW>(parameters, torch::optim::AdamWOptions(config.lr)
                                                            .betas({config.beta1, config.beta2})
                                                            .eps(config.eps)
                                                            .weight_decay(config.weight_decay)));
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (torch::optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    group.options().set_lr(lr);
  }
}

double learning_rate(torch::optim::Optimizer& optimizer) {
  return optimizer.param_groups().front().options().get_lr();
}

}  // namespace scalestudy::optim
