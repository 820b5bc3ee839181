#include "harness/gpu/device_loader.hpp"

#include <set>

#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::gpu {
namespace {

// 40 images of 2 x 6 x 5 whose pixels are all distinct mod 256 within an image.
data::ImageSplit make_split(int64_t count = 40) {
  torch::Tensor pixels = torch::arange(count * 2 * 6 * 5, torch::kLong).remainder(251);
  return data::ImageSplit{pixels.to(torch::kUInt8).view({count, 2, 6, 5}),
                          torch::arange(count, torch::kLong).remainder(10)};
}

const data::ChannelStats kIdentity{{0.0, 0.0}, {1.0, 1.0}};  // output = pixel / 255

DeviceLoaderOptions options(int64_t global_batch, data::RankInWorld where, uint64_t seed) {
  DeviceLoaderOptions result;
  result.global_batch = global_batch;
  result.where = where;
  result.seed = seed;
  return result;
}

TEST_CASE("batches have the per-rank shape and match their labels") {
  data::ImageSplit split = make_split();
  auto loader = DeviceBatchLoader::create(split, kIdentity, torch::kCPU, options(8, {1, 2}, 3));
  REQUIRE(loader.is_ok());
  CHECK(loader->per_rank_batch() == 4);
  CHECK(loader->batches_per_epoch() == 5);
  loader->start_epoch(0);
  DeviceBatch batch = loader->batch(2);
  CHECK((batch.images.sizes() == std::vector<int64_t>{4, 2, 6, 5}));
  CHECK((batch.images.scalar_type() == torch::kFloat));
  CHECK(torch::equal(batch.labels, split.labels.index_select(0, batch.sample_indices)));
}

TEST_CASE("normalisation is (pixel / 255 - mean) / stddev per channel") {
  data::ImageSplit split = make_split();
  data::ChannelStats stats{{0.25, 0.5}, {0.5, 2.0}};
  auto loader = DeviceBatchLoader::create(split, stats, torch::kCPU, options(10, {0, 1}, 1));
  REQUIRE(loader.is_ok());
  loader->start_epoch(0);
  DeviceBatch batch = loader->batch(0);
  torch::Tensor raw = split.images.index_select(0, batch.sample_indices).to(torch::kFloat) / 255;
  torch::Tensor mean = torch::tensor({0.25f, 0.5f}).view({1, 2, 1, 1});
  torch::Tensor stddev = torch::tensor({0.5f, 2.0f}).view({1, 2, 1, 1});
  CHECK(torch::allclose(batch.images, (raw - mean) / stddev, 1e-5, 1e-6));
}

TEST_CASE("ranks share the epoch's permutation and split each global batch") {
  data::ImageSplit split = make_split();
  std::set<int64_t> seen;
  for (int rank = 0; rank < 4; ++rank) {
    auto loader =
        DeviceBatchLoader::create(split, kIdentity, torch::kCPU, options(8, {rank, 4}, 9));
    REQUIRE(loader.is_ok());
    loader->start_epoch(2);
    for (int64_t b = 0; b < loader->batches_per_epoch(); ++b) {
      torch::Tensor indices = loader->batch(b).sample_indices;
      REQUIRE(indices.numel() == 2);
      for (int64_t i = 0; i < 2; ++i) CHECK(seen.insert(indices[i].item<int64_t>()).second);
    }
  }
  CHECK(seen.size() == 40);  // 5 global batches of 8 cover the 40 samples exactly once
}

TEST_CASE("the same seed and epoch give the same batches; another epoch reshuffles") {
  data::ImageSplit split = make_split();
  DeviceLoaderOptions augmented = options(8, {0, 1}, 5);
  augmented.augment = data::AugmentOptions{2, true};
  auto first = DeviceBatchLoader::create(split, kIdentity, torch::kCPU, augmented);
  auto second = DeviceBatchLoader::create(split, kIdentity, torch::kCPU, augmented);
  REQUIRE(first.is_ok());
  REQUIRE(second.is_ok());
  first->start_epoch(1);
  second->start_epoch(1);
  DeviceBatch later = second->batch(3);  // order of calls must not matter
  CHECK(torch::equal(first->batch(3).images, later.images));
  CHECK(torch::equal(first->batch(0).sample_indices, second->batch(0).sample_indices));
  second->start_epoch(2);
  CHECK_FALSE(torch::equal(first->batch(0).sample_indices, second->batch(0).sample_indices));
}

TEST_CASE("crops are windows of the zero-padded image, some mirrored") {
  data::ImageSplit split = make_split();
  const int64_t pad = 2;
  DeviceLoaderOptions augmented = options(16, {0, 1}, 11);
  augmented.augment = data::AugmentOptions{pad, true};
  augmented.memory_format = at::MemoryFormat::ChannelsLast;
  auto loader = DeviceBatchLoader::create(split, kIdentity, torch::kCPU, augmented);
  REQUIRE(loader.is_ok());
  loader->start_epoch(0);
  DeviceBatch batch = loader->batch(1);
  CHECK(batch.images.is_contiguous(at::MemoryFormat::ChannelsLast));
  torch::Tensor padded = torch::constant_pad_nd(split.images, {pad, pad, pad, pad}, 0);
  int flipped = 0, shifted = 0;
  for (int64_t i = 0; i < 16; ++i) {
    torch::Tensor pixels = (batch.images[i] * 255).round().to(torch::kUInt8);
    torch::Tensor source = padded[batch.sample_indices[i].item<int64_t>()];
    bool matched = false;
    for (int64_t row = 0; row <= 2 * pad && !matched; ++row) {
      for (int64_t col = 0; col <= 2 * pad && !matched; ++col) {
        torch::Tensor window = source.narrow(1, row, 6).narrow(2, col, 5);
        for (bool flip : {false, true}) {
          if (torch::equal(pixels, flip ? window.flip(2) : window)) {
            matched = true;
            flipped += flip;
            shifted += (row != pad || col != pad);
            break;
          }
        }
      }
    }
    CHECK_MESSAGE(matched, "sample " << i << " is no window of its padded image");
  }
  CHECK(flipped > 0);
  CHECK(flipped < 16);
  CHECK(shifted > 0);
}

TEST_CASE("bad options are rejected with the reason") {
  data::ImageSplit split = make_split();
  auto indivisible =
      DeviceBatchLoader::create(split, kIdentity, torch::kCPU, options(6, {0, 4}, 0));
  REQUIRE_FALSE(indivisible.is_ok());
  CHECK(indivisible.status().message().find("multiple of the world size 4") != std::string::npos);
  data::ChannelStats one_channel{{0.5}, {0.5}};
  auto mismatch = DeviceBatchLoader::create(split, one_channel, torch::kCPU, options(8, {0, 1}, 0));
  REQUIRE_FALSE(mismatch.is_ok());
  CHECK(mismatch.status().message().find("for 2 channels") != std::string::npos);
}

}  // namespace
}  // namespace scalestudy::gpu
