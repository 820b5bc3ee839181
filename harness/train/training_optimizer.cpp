#include "harness/train/training_optimizer.hpp"

#include <string>

#include "harness/compat/torch_compat.hpp"
#include "harness/gpu/foreach_adamw.hpp"
#include "harness/gpu/foreach_sgd.hpp"

namespace scalestudy::train {
namespace {

class LoopOptimizer : public TrainingOptimizer {
 public:
  explicit LoopOptimizer(std::unique_ptr<torch::optim::Optimizer> optimizer)
      : optimizer_(std::move(optimizer)) {}
  void set_lr(double lr) override { optim::set_learning_rate(*optimizer_, lr); }
  // Frees the gradients (PyTorch's set_to_none): backward then hands its results over as
  // .grad instead of adding them into zeroed tensors.
  void zero_grad() override {
    for (auto& group : optimizer_->param_groups()) {
      for (auto& parameter : group.params()) parameter.mutable_grad() = torch::Tensor();
    }
  }
  void step() override { optimizer_->step(); }
  void step_unless(const torch::Tensor& found_inf) override {
    TORCH_CHECK(!found_inf.defined(), "torch::optim cannot skip a step on the device");
    step();
  }
  void save(torch::serialize::OutputArchive& archive) const override { optimizer_->save(archive); }
  void load(torch::serialize::InputArchive& archive) override { optimizer_->load(archive); }
  int64_t state_bytes() const override {
    int64_t bytes = 0;
    auto add = [&bytes](const torch::Tensor& tensor) {
      if (tensor.defined()) bytes += tensor.numel() * static_cast<int64_t>(tensor.element_size());
    };
    for (const auto& [key, state] : optimizer_->state()) {
      if (const auto* adamw = dynamic_cast<const torch::optim::AdamWParamState*>(state.get())) {
        add(adamw->exp_avg());
        add(adamw->exp_avg_sq());
        add(adamw->max_exp_avg_sq());
      } else if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(state.get())) {
        add(sgd->momentum_buffer());
      }
    }
    return bytes;
  }

 private:
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

class ForeachOptimizer : public TrainingOptimizer {
 public:
  explicit ForeachOptimizer(std::unique_ptr<gpu::MultiTensorOptimizer> optimizer)
      : optimizer_(std::move(optimizer)) {}
  void set_lr(double lr) override { optimizer_->set_lr(lr); }
  void zero_grad() override { optimizer_->zero_grad(); }
  void step() override { optimizer_->step(); }
  bool skips_on_device() const override { return compat::kHasFusedOptimizers; }
  void step_unless(const torch::Tensor& found_inf) override { optimizer_->step_unless(found_inf); }
  void save(torch::serialize::OutputArchive& archive) const override { optimizer_->save(archive); }
  void load(torch::serialize::InputArchive& archive) override { optimizer_->load(archive); }
  int64_t state_bytes() const override { return optimizer_->state_bytes(); }

 private:
  std::unique_ptr<gpu::MultiTensorOptimizer> optimizer_;
};

std::unique_ptr<gpu::MultiTensorOptimizer> make_multi_tensor_optimizer(
    const std::vector<torch::Tensor>& parameters, const optim::OptimizerConfig& config) {
  if (config.kind == optim::OptimizerKind::kAdamW) {
    gpu::ForeachAdamWOptions options;
    options.lr = config.lr;
    options.beta1 = config.beta1;
    options.beta2 = config.beta2;
    options.eps = config.eps;
    options.weight_decay = config.weight_decay;
    return std::make_unique<gpu::ForeachAdamW>(parameters, options);
  }
  gpu::ForeachSgdOptions options;
  options.lr = config.lr;
  options.momentum = config.momentum;
  options.weight_decay = config.weight_decay;
  options.nesterov = config.nesterov;
  return std::make_unique<gpu::ForeachSgd>(parameters, options);
}

}  // namespace

Result<OptimizerImpl> parse_optimizer_impl(std::string_view text) {
  if (text == "auto") return OptimizerImpl::kAuto;
  if (text == "foreach") return OptimizerImpl::kForeach;
  if (text == "loop") return OptimizerImpl::kLoop;
  return Status::error("--optimizer-impl: '" + std::string(text) +
                       "' is not one of auto, foreach, loop");
}

const char* optimizer_impl_name(OptimizerImpl impl) {
  switch (impl) {
    case OptimizerImpl::kAuto:
      return "auto";
    case OptimizerImpl::kForeach:
      return "foreach";
    case OptimizerImpl::kLoop:
      return "loop";
  }
  return "auto";
}

OptimizerImpl resolve_optimizer_impl(OptimizerImpl requested, bool cuda_graph,
                                     const torch::Device& device) {
  if (requested != OptimizerImpl::kAuto) return requested;
  return cuda_graph || device.is_cuda() ? OptimizerImpl::kForeach : OptimizerImpl::kLoop;
}

Result<std::unique_ptr<TrainingOptimizer>> make_training_optimizer(
    const std::vector<torch::Tensor>& parameters, const optim::OptimizerConfig& config,
    OptimizerImpl impl) {
  // torch::optim's factory checks the settings for both implementations.
  auto optimizer = optim::make_optimizer(parameters, config);
  if (!optimizer) return optimizer.status();
  if (impl != OptimizerImpl::kForeach) {
    return std::unique_ptr<TrainingOptimizer>(
        std::make_unique<LoopOptimizer>(std::move(*optimizer)));
  }
  return std::unique_ptr<TrainingOptimizer>(
      std::make_unique<ForeachOptimizer>(make_multi_tensor_optimizer(parameters, config)));
}

}  // namespace scalestudy::train
