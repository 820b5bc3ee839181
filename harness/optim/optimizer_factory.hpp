// Builds the training optimizer (torch::optim SGD with momentum / Nesterov / weight decay,
// or AdamW) from a resolved configuration, and sets its learning rate every step from an
// LrSchedule. The returned optimizer is a plain torch::optim::Optimizer: not synchronised.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::optim {

enum class OptimizerKind { kSgd, kAdamW };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  double lr = 0.1;  // initial rate; the schedule overrides it each step
  double weight_decay = 0.0;
  double momentum = 0.9;  // SGD
  bool nesterov = false;  // SGD; needs momentum > 0
  double beta1 = 0.9;     // AdamW
  double beta2 = 0.999;   // AdamW
  double eps = 1e-8;      // AdamW
};

// "sgd", "adamw"; the error lists them.
Result<OptimizerKind> parse_optimizer_kind(const std::string& name);

Result<std::unique_ptr<torch::optim::Optimizer>> make_optimizer(
    const std::vector<torch::Tensor>& parameters, const OptimizerConfig& config);

// Sets the rate of every parameter group (as PyTorch schedulers do).
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// The rate of the first parameter group.
double learning_rate(torch::optim::Optimizer& optimizer);

}  // namespace scalestudy::optim
