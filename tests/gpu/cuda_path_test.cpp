// Checks of the device-agnostic GPU-path pieces on a CUDA device: the fused unscale kernel
// against the CPU composite, and the device loader on the GPU against itself on the CPU.
// Skipped (with a message) where no CUDA device is visible.
#include <limits>

#include "harness/gpu/device_loader.hpp"
#include "harness/gpu/loss_scaler.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::gpu {
namespace {

bool skip_without_cuda() {
  if (torch::cuda::is_available()) return false;
  MESSAGE("skipped: no CUDA device visible");
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

}  // namespace
}  // namespace scalestudy::gpu
