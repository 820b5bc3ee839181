// A training shard's round trip: a few steps after write_shard() and the same steps after
// read_shard() into a fresh model and optimizer give bit-identical weights — momentum, Adam
// moments, the default generator (dropout) and a task's own generator all carried over.
// clang-format off
#include "tests/harness/torch_doctest.hpp"
// clang-format on

#include "harness/train/training_checkpoint.hpp"

#include <torch/torch.h>

#include "harness/gpu/device_loader.hpp"
#include "tests/harness/child_process.hpp"

namespace scalestudy::train {
namespace {

// A small MLP with dropout (the default generator) and input noise from a generator of its
// own, as the DDPM task draws its noise.
class NoisyRegressionTask : public TrainingTask {
 public:
  explicit NoisyRegressionTask(uint64_t init_seed)
      : generator_(gpu::make_seeded_generator(torch::kCPU, 7)) {
    torch::manual_seed(init_seed);
    net_ = torch::nn::Sequential(torch::nn::Linear(4, 16), torch::nn::ReLU(),
                                 torch::nn::Dropout(0.3), torch::nn::Linear(16, 1));
  }
  void declare_flags(Flags&) const override {}
  Status setup(const TaskSetup&) override { return Status::ok(); }
  torch::nn::Module& module() override { return *net_; }
  Result<std::unique_ptr<data::BatchLoader>> train_batches(int64_t, int64_t, int64_t) override {
    return Status::error("not used");
  }
  Result<std::unique_ptr<data::BatchLoader>> eval_batches(int64_t) override {
    return Status::error("not used");
  }
  TaskOutput forward(const data::Batch&) override { return {}; }
  void save_state(torch::serialize::OutputArchive& archive) const override {
    at::Generator generator = generator_;
    archive.write("generator", generator.get_state(), /*is_buffer=*/true);
  }
  void load_state(torch::serialize::InputArchive& archive) override {
    torch::Tensor state;
    archive.read("generator", state, /*is_buffer=*/true);
    generator_.set_state(state);
  }

  torch::Tensor step_loss() {
    torch::Tensor inputs = torch::randn({16, 4}, generator_);
    return (net_->forward(inputs) - inputs.sum(1, true)).pow(2).mean();
  }

 private:
  torch::nn::Sequential net_{nullptr};
  at::Generator generator_;
};

struct Trainer {
  Trainer(uint64_t init_seed, const optim::OptimizerConfig& config, OptimizerImpl impl)
      : task(init_seed), precision(gpu::Precision::kFp32, torch::kCPU) {
    auto made = make_training_optimizer(task.module().parameters(), config, impl);
    REQUIRE(made);
    optimizer = std::move(*made);
  }
  void steps(int count) {
    for (int i = 0; i < count; ++i) {
      optimizer->zero_grad();
      precision.backward(task.step_loss());
      precision.step(task.module().parameters(), [this] { optimizer->step(); });
    }
  }
  ShardContents contents() {
    return ShardContents{task.module(), *optimizer, precision, task, torch::kCPU};
  }

  NoisyRegressionTask task;
  MixedPrecision precision;
  std::unique_ptr<TrainingOptimizer> optimizer;
};

void check_identical(torch::nn::Module& a, torch::nn::Module& b) {
  auto left = a.parameters(), right = b.parameters();
  REQUIRE(left.size() == right.size());
  for (size_t i = 0; i < left.size(); ++i) CHECK(torch::equal(left[i], right[i]));
}

}  // namespace

TEST_CASE("steps after a shard's round trip equal the uninterrupted steps, bit for bit") {
  struct Case {
    const char* name;
    optim::OptimizerKind kind;
    OptimizerImpl impl;
  };
  for (const Case& tried :
       {Case{"sgd loop", optim::OptimizerKind::kSgd, OptimizerImpl::kLoop},
        Case{"sgd foreach", optim::OptimizerKind::kSgd, OptimizerImpl::kForeach},
        Case{"adamw loop", optim::OptimizerKind::kAdamW, OptimizerImpl::kLoop},
        Case{"adamw foreach", optim::OptimizerKind::kAdamW, OptimizerImpl::kForeach}}) {
    INFO(tried.name);
    optim::OptimizerConfig config;
    config.kind = tried.kind;
    config.lr = 0.01;
    config.weight_decay = 0.01;
    const std::string path = testing::fresh_dir("shard-round-trip") + "/rank0.pt";

    Trainer uninterrupted(/*init_seed=*/3, config, tried.impl);
    uninterrupted.steps(4);
    LoopProgress progress;
    progress.global_step = 4;
    progress.epoch_loss_sum = torch::tensor(1.5, torch::kFloat64);
    progress.epoch_correct = torch::tensor(0.0, torch::kFloat64);
    progress.meter.measured_step_ms = {2.5, 3.5};
    REQUIRE(write_shard(path, progress, uninterrupted.contents()));
    uninterrupted.steps(3);

    Trainer resumed(/*init_seed=*/99, config, tried.impl);  // other weights until the load
    auto read = read_shard(path, 4, resumed.contents());
    REQUIRE_MESSAGE(read, read.status().message());
    CHECK(read->meter.measured_step_ms == std::vector<double>{2.5, 3.5});
    CHECK(read->epoch_loss_sum.item<double>() == 1.5);
    resumed.steps(3);
    check_identical(uninterrupted.task.module(), resumed.task.module());

    auto wrong_step = read_shard(path, 5, resumed.contents());
    REQUIRE_FALSE(wrong_step);
    CHECK(wrong_step.status().message().find("holds step 4, its manifest says 5") !=
          std::string::npos);
  }
}

}  // namespace scalestudy::train
