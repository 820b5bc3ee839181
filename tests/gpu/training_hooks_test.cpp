// The training loop's GPU-path hooks, on the CPU: precision (autocast, fp16 loss scaling
// with skip-on-inf), the two optimizer implementations, the two batch sources, and the
// flags that select them.
#include <limits>

#include "harness/compat/torch_compat.hpp"
#include "harness/train/epoch_batches.hpp"
#include "harness/train/mixed_precision.hpp"
#include "harness/train/training_config.hpp"
#include "harness/train/training_optimizer.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::train {
namespace {

TEST_CASE("bf16 runs the forward pass in bfloat16 on the CPU; fp32 does not") {
  torch::nn::Linear linear(4, 3);
  torch::Tensor input = torch::randn({2, 4});
  {
    gpu::AutocastScope autocast = MixedPrecision(gpu::Precision::kBf16, c10::kCPU).autocast();
    CHECK((linear->forward(input).scalar_type() == torch::kBFloat16));
  }
  CHECK((linear->forward(input).scalar_type() == torch::kFloat));
  gpu::AutocastScope autocast = MixedPrecision(gpu::Precision::kFp32, c10::kCPU).autocast();
  CHECK((linear->forward(input).scalar_type() == torch::kFloat));
}

TEST_CASE("fp16 loss scaling scales backward, unscales before the update, skips on inf") {
  MixedPrecision precision(gpu::Precision::kFp16, c10::kCPU);
  torch::Tensor weight = torch::ones({3}, torch::requires_grad());
  precision.backward((weight * 2).sum());
  // Default initial scale 65536: the gradient arrives scaled.
  CHECK(torch::allclose(weight.grad(), torch::full({3}, 2.0 * 65536)));
  torch::Tensor seen;
  CHECK(precision.step({weight}, [&] { seen = weight.grad().clone(); }));
  CHECK(torch::allclose(seen, torch::full({3}, 2.0)));

  weight.mutable_grad()[1] = std::numeric_limits<float>::infinity();
  bool stepped = false;
  CHECK_FALSE(precision.step({weight}, [&] { stepped = true; }));
  CHECK_FALSE(stepped);
  std::map<std::string, double> summary = precision.summary();
  CHECK(summary.at("loss_scale") == 32768.0);
  CHECK(summary.at("loss_scale_skipped_steps") == 1.0);

  MixedPrecision bf16(gpu::Precision::kBf16, c10::kCPU);
  CHECK(bf16.summary().empty());
  bool ran = false;
  CHECK(bf16.step({weight}, [&] { ran = true; }));
  CHECK(ran);
}

TEST_CASE("fp16 on the device: the optimizer gets the overflow flag instead of a host decision") {
  MixedPrecision precision(gpu::Precision::kFp16, c10::kCPU);
  torch::Tensor weight = torch::ones({3}, torch::requires_grad());
  precision.backward((weight * 2).sum());
  std::vector<float> flags;
  auto record_flag = [&](const torch::Tensor& found_inf) {
    REQUIRE(found_inf.defined());
    flags.push_back(found_inf.item<float>());
  };
  precision.step_on_device({weight}, record_flag);
  CHECK(torch::allclose(weight.grad(), torch::full({3}, 2.0)));  // unscaled in place
  weight.mutable_grad()[0] = std::numeric_limits<float>::quiet_NaN();
  precision.step_on_device({weight}, record_flag);
  CHECK(flags == std::vector<float>{0.0f, 1.0f});
  std::map<std::string, double> summary = precision.summary();
  CHECK(summary.at("loss_scale") == 32768.0);
  CHECK(summary.at("loss_scale_skipped_steps") == 1.0);

  MixedPrecision bf16(gpu::Precision::kBf16, c10::kCPU);
  bool undefined_flag = false;
  bf16.step_on_device(
      {weight}, [&](const torch::Tensor& found_inf) { undefined_flag = !found_inf.defined(); });
  CHECK(undefined_flag);
}

// Three SGD (momentum, Nesterov, weight decay) or AdamW steps on a small regression.
std::vector<torch::Tensor> train_three_steps(OptimizerImpl impl, optim::OptimizerKind kind) {
  torch::manual_seed(3);
  torch::nn::Linear model(5, 2);
  torch::Tensor input = torch::randn({8, 5});
  torch::Tensor target = torch::randn({8, 2});
  optim::OptimizerConfig config;
  config.lr = 0.05;
  config.momentum = 0.9;
  config.nesterov = true;
  config.weight_decay = 0.01;
  config.kind = kind;
  auto optimizer = make_training_optimizer(model->parameters(), config, impl);
  REQUIRE(optimizer.is_ok());
  for (double lr : {0.05, 0.1, 0.02}) {
    (*optimizer)->set_lr(lr);
    (*optimizer)->zero_grad();
    torch::mse_loss(model->forward(input), target).backward();
    (*optimizer)->step();
  }
  return {model->weight.detach().clone(), model->bias.detach().clone()};
}

TEST_CASE("--optimizer-impl foreach and loop take the same SGD and AdamW steps") {
  for (optim::OptimizerKind kind : {optim::OptimizerKind::kSgd, optim::OptimizerKind::kAdamW}) {
    CAPTURE(static_cast<int>(kind));
    std::vector<torch::Tensor> loop = train_three_steps(OptimizerImpl::kLoop, kind);
    std::vector<torch::Tensor> foreach = train_three_steps(OptimizerImpl::kForeach, kind);
    for (size_t i = 0; i < loop.size(); ++i) {
      CHECK(torch::allclose(loop[i], foreach[i], 1e-6, 1e-7));
    }
    torch::manual_seed(3);
    CHECK_FALSE(torch::allclose(loop[0], torch::nn::Linear(5, 2)->weight));  // it did train
  }
}

TEST_CASE("--optimizer-impl auto picks foreach on CUDA or in a graph, else loop") {
  const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA, 0);
  CHECK(resolve_optimizer_impl(OptimizerImpl::kAuto, false, cpu) == OptimizerImpl::kLoop);
  CHECK(resolve_optimizer_impl(OptimizerImpl::kAuto, false, cuda) == OptimizerImpl::kForeach);
  CHECK(resolve_optimizer_impl(OptimizerImpl::kAuto, true, cpu) == OptimizerImpl::kForeach);
  CHECK(resolve_optimizer_impl(OptimizerImpl::kLoop, false, cuda) == OptimizerImpl::kLoop);
}

data::ImageSplit small_split() {
  torch::manual_seed(5);
  return data::ImageSplit{torch::randint(0, 256, {40, 3, 6, 6}, torch::kLong).to(torch::kUInt8),
                          torch::randint(0, 10, {40}, torch::kLong)};
}

TEST_CASE("host batches arrive in the run's memory format; device batches cover the shard") {
  const data::ImageSplit split = small_split();
  const data::ChannelStats stats{{0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}};
  const data::RankInWorld rank1_of_2{1, 2};
  data::TrainEpochOptions epoch;
  epoch.global_batch = 8;
  epoch.prefetch_depth = 0;
  auto loader = data::BatchLoader::for_training(split, stats, rank1_of_2, epoch);
  REQUIRE(loader.is_ok());
  std::unique_ptr<EpochBatches> host =
      host_batches(std::move(*loader), BatchPlacement{torch::kCPU, at::MemoryFormat::ChannelsLast});
  CHECK(host->num_batches() == 5);
  int64_t host_count = 0;
  while (std::optional<data::Batch> batch = host->next()) {
    CHECK(batch->images.is_contiguous(at::MemoryFormat::ChannelsLast));
    CHECK(batch->images.size(0) == 4);
    ++host_count;
  }
  CHECK(host_count == 5);

  gpu::DeviceLoaderOptions options;
  options.global_batch = 8;
  options.where = rank1_of_2;
  auto resident = gpu::DeviceBatchLoader::create(split, stats, torch::kCPU, options);
  REQUIRE(resident.is_ok());
  std::unique_ptr<EpochBatches> device = device_batches(*resident, 1, 0);
  CHECK(device->num_batches() == 5);
  // The adapter hands out the loader's batches of the epoch it started, in order.
  auto reference = gpu::DeviceBatchLoader::create(split, stats, torch::kCPU, options);
  reference->start_epoch(1);
  int64_t device_count = 0;
  while (std::optional<data::Batch> batch = device->next()) {
    gpu::DeviceBatch expected = reference->batch(device_count);
    CHECK(batch->valid_count == 4);
    CHECK(batch->index == device_count);
    CHECK(torch::equal(batch->images, expected.images));
    CHECK(torch::equal(batch->labels, expected.labels));
    ++device_count;
  }
  CHECK(device_count == 5);
}

TEST_CASE("--data-on-device: always, never, or on a GPU when the padded split fits a quarter") {
  const data::ImageSplit split = small_split();  // 40 x 3 x 6 x 6 bytes; padded by 2: 40*3*100
  const data::ChannelStats stats{{0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}};
  const std::optional<ResidentData> resident = ResidentData{&split, &stats, {2, true}};
  const int64_t padded_bytes = 40 * 3 * 10 * 10;
  const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA, 0);

  CHECK_FALSE(*keep_split_on_device(DataPlacement::kHost, resident, cuda, 1 << 30));
  CHECK(*keep_split_on_device(DataPlacement::kDevice, resident, cpu, 0));
  CHECK(keep_split_on_device(DataPlacement::kDevice, std::nullopt, cuda, 1 << 30)
            .status()
            .message() == "--data-on-device true: this task has no device-resident data");
  CHECK_FALSE(*keep_split_on_device(DataPlacement::kAuto, resident, cpu, 1 << 30));
  CHECK_FALSE(*keep_split_on_device(DataPlacement::kAuto, std::nullopt, cuda, 1 << 30));
  CHECK(*keep_split_on_device(DataPlacement::kAuto, resident, cuda, 4 * padded_bytes));
  CHECK_FALSE(*keep_split_on_device(DataPlacement::kAuto, resident, cuda, 4 * padded_bytes - 4));
}

Result<TrainingConfig> config_from(const std::vector<std::string>& arguments) {
  Flags flags;
  declare_training_flags(flags);
  if (Status parsed = flags.parse(arguments); !parsed) return parsed;
  return resolve_training_config(flags);
}

TEST_CASE("the GPU path's flags parse into the training config") {
  auto defaults = config_from({});
  REQUIRE(defaults.is_ok());
  CHECK(defaults->precision == gpu::Precision::kFp32);
  CHECK_FALSE(defaults->channels_last);
  CHECK_FALSE(defaults->cudnn_benchmark);
  CHECK(defaults->data_on_device == DataPlacement::kAuto);
  CHECK_FALSE(defaults->cuda_graph);
  CHECK(defaults->optimizer_impl == OptimizerImpl::kAuto);
  CHECK_FALSE(defaults->deterministic);

  auto set = config_from({"--precision", "bf16", "--channels-last", "true", "--cudnn-benchmark",
                          "true", "--data-on-device", "false", "--cuda-graph", "true",
                          "--optimizer-impl", "foreach", "--deterministic", "false"});
  REQUIRE_MESSAGE(set.is_ok(), set.status().message());
  CHECK(set->precision == gpu::Precision::kBf16);
  CHECK(set->channels_last);
  CHECK(set->cudnn_benchmark);
  CHECK(set->data_on_device == DataPlacement::kHost);
  CHECK(set->cuda_graph);
  CHECK(set->optimizer_impl == OptimizerImpl::kForeach);
}

TEST_CASE("bad values and impossible combinations of the GPU path's flags name the flag") {
  struct Case {
    std::vector<std::string> arguments;
    std::string message;
  };
  for (const Case& bad : {
           Case{{"--precision", "fp8"}, "--precision: 'fp8' is not one of fp32, tf32, fp16, bf16"},
           Case{{"--data-on-device", "on"},
                "--data-on-device: 'on' is not one of auto, true, false"},
           Case{{"--optimizer-impl", "fused"},
                "--optimizer-impl: 'fused' is not one of auto, foreach, loop"},
           Case{{"--channels-last", "yes"}, "--channels-last"},
           Case{{"--cuda-graph", "true", "--precision", "fp16"},
                "--cuda-graph cannot capture fp16 loss scaling"},
           Case{{"--cuda-graph", "true", "--optimizer-impl", "loop"},
                "--cuda-graph needs --optimizer-impl foreach"},
           Case{{"--deterministic", "true", "--cudnn-benchmark", "true"},
                "--deterministic excludes --cudnn-benchmark true"},
       }) {
    auto config = config_from(bad.arguments);
    REQUIRE_FALSE(config.is_ok());
    CHECK_MESSAGE(config.status().message().find(bad.message) != std::string::npos,
                  config.status().message());
  }
}

TEST_CASE(
    "a captured step takes AdamW where the fused kernel keeps its step counts on the device") {
  auto config = config_from({"--cuda-graph", "true", "--optimizer", "adamw"});
  if (compat::kHasFusedOptimizers) {
    CHECK_MESSAGE(config.is_ok(), config.status().message());
  } else {
    REQUIRE_FALSE(config.is_ok());
    CHECK(config.status().message().find(
              "--cuda-graph with --optimizer adamw needs LibTorch >= 2.4's fused AdamW") == 0);
  }
}

}  // namespace
}  // namespace scalestudy::train
