// Checks of the device-agnostic GPU-path pieces on a CUDA device: the fused unscale kernel
// against the CPU composite, the device loader on the GPU against itself on the CPU, the
// training loop's late reads of device scalars, and a multi-rank-shaped step — gradient
// bucketer included — captured as a CUDA graph on the runtime's one step stream.
// Skipped (with a message) where no CUDA device is visible.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "harness/compat/torch_compat.hpp"
#include "harness/dist/gradient_bucketer.hpp"
#include "harness/gpu/device_loader.hpp"
#include "harness/gpu/device_runtime.hpp"
#include "harness/gpu/loss_scaler.hpp"
#include "harness/train/scalar_readback.hpp"
#include "harness/train/stop_agreement.hpp"
#include "tests/gpu/peer_communicator.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy::gpu {
namespace {

bool skip_without_cuda() {
  if (torch::cuda::is_available()) return false;
  NOTE_SKIP_NOT_APPLICABLE("no CUDA device visible");
  return true;
}

TEST_CASE("the fused CUDA unscale agrees with the CPU composite") {
  if (skip_without_cuda()) return;
  for (bool poisoned : {false, true}) {
    std::vector<torch::Tensor> cpu = {torch::randn({1000}) * 512, torch::randn({7, 3}) * 512};
    if (poisoned) cpu[1][2][1] = std::numeric_limits<float>::infinity();
    std::vector<torch::Tensor> cuda = {cpu[0].cuda(), cpu[1].cuda()};
    LossScaler on_cpu(LossScalerOptions{512.0, 2.0, 0.5, 2000});
    LossScaler on_cuda(LossScalerOptions{512.0, 2.0, 0.5, 2000});
    CHECK(on_cpu.step(cpu, [] {}) == !poisoned);
    CHECK(on_cuda.step(cuda, [] {}) == !poisoned);
    CHECK(on_cpu.scale_value() == on_cuda.scale_value());
    CHECK(torch::allclose(cuda[0].cpu(), cpu[0]));
  }
}

TEST_CASE("the device loader produces finite normalised batches on the GPU") {
  if (skip_without_cuda()) return;
  data::ImageSplit split{torch::randint(0, 256, {64, 3, 8, 8}, torch::kLong).to(torch::kUInt8),
                         torch::randint(0, 10, {64}, torch::kLong)};
  DeviceLoaderOptions options;
  options.global_batch = 16;
  options.augment = data::AugmentOptions{2, true};
  options.memory_format = at::MemoryFormat::ChannelsLast;
  auto loader = DeviceBatchLoader::create(split, {{0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}},
                                          torch::Device(torch::kCUDA, 0), options);
  REQUIRE(loader.is_ok());
  loader->start_epoch(0);
  DeviceBatch batch = loader->batch(0);
  CHECK(batch.images.is_cuda());
  CHECK(batch.images.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK(torch::isfinite(batch.images).all().item<bool>());
  CHECK(batch.images.max().item<float>() <= 2.0f + 1e-5f);
  CHECK(torch::equal(batch.labels.cpu(), split.labels.index_select(0, batch.sample_indices.cpu())));
  // Identical permutation on every rank: rebuilt from the same seed, the same indices.
  auto again = DeviceBatchLoader::create(split, {{0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}},
                                         torch::Device(torch::kCUDA, 0), options);
  again->start_epoch(0);
  CHECK(torch::equal(again->batch(0).sample_indices, batch.sample_indices));
  CHECK(torch::equal(again->batch(0).images, batch.images));
}

TEST_CASE("device scalars come back late, each with the value its copy started from") {
  if (skip_without_cuda()) return;
  const torch::Device cuda(torch::kCUDA, 0);
  train::StepLossReadback losses(cuda);
  torch::Tensor big = torch::randn({2048, 2048}, cuda);
  std::vector<double> expected;
  for (int step = 0; step < 4; ++step) {
    torch::Tensor loss = big.matmul(big).abs().mean() + step;  // queued, not finished
    torch::Tensor kept = loss.clone();
    std::optional<double> previous = losses.push(loss);
    loss.fill_(-1);  // as a replay overwrites its output: the copy was queued first
    CHECK(previous.has_value() == (step > 0));
    if (previous) CHECK(*previous == doctest::Approx(expected[step - 1]));
    expected.push_back(kept.item<double>());
  }
  CHECK(losses.drain() == doctest::Approx(expected.back()));
}

TEST_CASE("the stop vote on the device: waited at launch, read at the next check") {
  if (skip_without_cuda()) return;
  double peer_vote = 0;
  testing::PeerCommunicator nccl("nccl", [&](const torch::Tensor& vote) {
    CHECK(vote.is_cuda());
    vote.add_(peer_vote);
  });
  train::StopAgreement agreement(nccl, torch::Device(torch::kCUDA, 0), 2);
  CHECK(*agreement.at_boundary(0, false) == false);
  CHECK(nccl.waits == 1);  // NCCL's wait only orders the stream: at once
  peer_vote = 1;
  CHECK(*agreement.at_boundary(2, false) == false);
  CHECK(*agreement.at_boundary(4, false) == true);
  CHECK(agreement.settle().is_ok());
}

TEST_CASE("a bucketed step captured on the step stream trains as eager steps do") {
  if (skip_without_cuda()) return;
  auto runtime = open_device(DeviceKind::kCuda, 0);
  REQUIRE_MESSAGE(runtime.is_ok(), runtime.status().message());
  const torch::Device cuda = (*runtime)->device();
  torch::manual_seed(3);
  torch::nn::Sequential reference(torch::nn::Linear(8, 32), torch::nn::ReLU(),
                                  torch::nn::Linear(32, 32), torch::nn::ReLU(),
                                  torch::nn::Linear(32, 4));
  torch::nn::Sequential model(
      std::dynamic_pointer_cast<torch::nn::SequentialImpl>(reference->clone(cuda)));
  const torch::Tensor input = torch::randn({16, 8});
  const torch::Tensor static_input = input.to(cuda);
  constexpr double kLr = 0.05;
  auto sgd = [](const std::vector<torch::Tensor>& parameters) {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& parameter : parameters) parameter.add_(parameter.grad(), -kLr);
  };

  // A world of two whose peer holds the same gradients: the average is this rank's own.
  testing::PeerCommunicator pair("nccl", [](const torch::Tensor& flat) { flat.mul_(2); });
  dist::BucketerOptions options;
  options.bucket_cap_mb = 0.002;  // several buckets, launched while backward goes on
  options.first_bucket_cap_mb = 0.001;
  std::unique_ptr<dist::GradientBucketer> bucketer;
  (*runtime)->on_step_stream([&] {
    bucketer = std::make_unique<dist::GradientBucketer>(model->parameters(), pair, options);
  });
  REQUIRE(bucketer->buckets().size() > 1);

  torch::Tensor static_loss;
  Status finished;
  auto graph = (*runtime)->capture_step(
      [&] {
        bucketer->start_step();
        torch::Tensor loss = model->forward(static_input).pow(2).mean();
        loss.backward();
        finished = bucketer->finish();
        sgd(model->parameters());
        static_loss = loss.detach();
      },
      /*warmup_steps=*/3);
  REQUIRE(graph.is_ok());

  compat::WarningCollector warnings;
  constexpr int kSteps = 6;  // 3 eager, the capture with its first replay, 2 replays
  std::vector<double> losses;
  for (int step = 0; step < kSteps; ++step) {
    (*graph)->run();
    losses.push_back(static_loss.item<double>());
  }
  CHECK(finished.is_ok());
  CHECK(pair.launches == static_cast<int>(bucketer->buckets().size()) * 4);  // once captured
  for (const std::string& message : warnings.messages) {
    CHECK_MESSAGE(message.find("AccumulateGrad") == std::string::npos, message);
  }

  for (int step = 0; step < kSteps; ++step) {
    reference->zero_grad();
    torch::Tensor loss = reference->forward(input).pow(2).mean();
    loss.backward();
    sgd(reference->parameters());
    CAPTURE(step);
    CHECK(losses[step] == doctest::Approx(loss.item<double>()).epsilon(1e-4));
  }
  const std::vector<torch::Tensor> trained = model->parameters();
  const std::vector<torch::Tensor> expected = reference->parameters();
  for (size_t i = 0; i < trained.size(); ++i) {
    CHECK(torch::allclose(trained[i].cpu(), expected[i], 1e-4, 1e-5));
  }
}

}  // namespace
}  // namespace scalestudy::gpu
