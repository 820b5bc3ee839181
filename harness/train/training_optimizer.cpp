#include "harness/train/training_optimizer.hpp"

#include <string>

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
  void save(torch::serialize::OutputArchive& archive) const override { optimizer_->save(archive); }
  void load(torch::serialize::InputArchive& archive) override { optimizer_->load(archive); }

 private:
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

class ForeachOptimizer : public TrainingOptimizer {
 public:
  ForeachOptimizer(const std::vector<torch::Tensor>& parameters, gpu::ForeachSgdOptions options)
      : sgd_(parameters, options) {}
  void set_lr(double lr) override { sgd_.set_lr(lr); }
  void zero_grad() override { sgd_.zero_grad(); }
  void step() override { sgd_.step(); }
  void save(torch::serialize::OutputArchive& archive) const override { sgd_.save(archive); }
  void load(torch::serialize::InputArchive& archive) override { sgd_.load(archive); }

 private:
  gpu::ForeachSgd sgd_;
};

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

OptimizerImpl resolve_optimizer_impl(OptimizerImpl requested, optim::OptimizerKind kind,
                                     bool cuda_graph, const torch::Device& device) {
  if (requested != OptimizerImpl::kAuto) return requested;
  const bool foreach_pays = cuda_graph || device.is_cuda();
  return kind == optim::OptimizerKind::kSgd && foreach_pays ? OptimizerImpl::kForeach
                                                            : OptimizerImpl::kLoop;
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
  if (config.kind != optim::OptimizerKind::kSgd) {
    return Status::error("--optimizer-impl foreach implements sgd only");
  }
  gpu::ForeachSgdOptions options;
  options.lr = config.lr;
  options.momentum = config.momentum;
  options.weight_decay = config.weight_decay;
  options.nesterov = config.nesterov;
  return std::unique_ptr<TrainingOptimizer>(
      std::make_unique<ForeachOptimizer>(parameters, options));
}

}  // namespace scalestudy::train
