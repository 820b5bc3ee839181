#include "harness/data/batch_assembly.hpp"

#include <random>

#include "harness/data/seed_mixing.hpp"

namespace scalestudy::data {
namespace {

// Crop offsets in [0, 2 * padding] and flip flags for each of `batch_size` samples, as
// int64 CPU tensors; drawn bit-exactly from mt19937_64 (no implementation-defined
// distributions), so every platform augments alike.
struct CropAndFlip {
  torch::Tensor row_offsets, col_offsets, flipped;
};

CropAndFlip draw_crop_and_flip(int64_t batch_size, const AugmentOptions& augment,
                               uint64_t augment_seed) {
  std::mt19937_64 engine(augment_seed);
  CropAndFlip draws{torch::zeros({batch_size}, torch::kLong),
                    torch::zeros({batch_size}, torch::kLong),
                    torch::zeros({batch_size}, torch::kBool)};
  auto rows = draws.row_offsets.accessor<int64_t, 1>();
  auto cols = draws.col_offsets.accessor<int64_t, 1>();
  auto flips = draws.flipped.accessor<bool, 1>();
  const uint64_t positions = static_cast<uint64_t>(2 * augment.crop_padding + 1);
  for (int64_t i = 0; i < batch_size; ++i) {
    const uint64_t draw = engine();
    // Top bit picks the flip; the rest, far wider than the position count, the offsets.
    rows[i] = static_cast<int64_t>((draw & 0xffffffffULL) % positions);
    cols[i] = static_cast<int64_t>(((draw >> 32) & 0x7fffffffULL) % positions);
    flips[i] = augment.horizontal_flip && (draw >> 63) != 0;
  }
  return draws;
}

// One advanced-indexing gather performs every sample's crop and flip at once.
torch::Tensor crop_and_flip(const torch::Tensor& images, const AugmentOptions& augment,
                            uint64_t augment_seed) {
  const int64_t batch = images.size(0), channels = images.size(1);
  const int64_t height = images.size(2), width = images.size(3);
  const int64_t pad = augment.crop_padding;
  const torch::Tensor padded =
      pad > 0 ? torch::constant_pad_nd(images, {pad, pad, pad, pad}, 0) : images;
  const CropAndFlip draws = draw_crop_and_flip(batch, augment, augment_seed);
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(images.device());
  const torch::Tensor row_steps = torch::arange(height, long_options);
  const torch::Tensor col_steps = torch::arange(width, long_options);
  const torch::Tensor flipped = draws.flipped.to(images.device()).view({batch, 1});
  const torch::Tensor rows = draws.row_offsets.to(images.device()).view({batch, 1}) + row_steps;
  const torch::Tensor cols = draws.col_offsets.to(images.device()).view({batch, 1}) +
                             torch::where(flipped, col_steps.flip(0), col_steps);
  return padded.index({torch::arange(batch, long_options).view({batch, 1, 1, 1}),
                       torch::arange(channels, long_options).view({1, channels, 1, 1}),
                       rows.view({batch, 1, height, 1}), cols.view({batch, 1, 1, width})});
}

}  // namespace

uint64_t augmentation_seed(uint64_t seed, int64_t epoch, int rank, int64_t batch_index) {
  uint64_t state = mix_seed(seed);
  state = mix_seed(state ^ static_cast<uint64_t>(epoch));
  state = mix_seed(state ^ static_cast<uint64_t>(rank));
  return mix_seed(state ^ static_cast<uint64_t>(batch_index));
}

Batch assemble_batch(const ImageSplit& split, const torch::Tensor& indices,
                     const ChannelStats& stats, const AugmentOptions& augment,
                     uint64_t augment_seed) {
  const torch::Tensor device_indices = indices.to(split.images.device());
  torch::Tensor images = split.images.index_select(0, device_indices);
  if (augment.enabled()) images = crop_and_flip(images, augment, augment_seed);
  const int64_t channels = images.size(1);
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat);
  const torch::Tensor mean =
      torch::tensor(std::vector<float>(stats.mean.begin(), stats.mean.end()), float_options)
          .view({1, channels, 1, 1})
          .to(images.device());
  const torch::Tensor stddev =
      torch::tensor(std::vector<float>(stats.stddev.begin(), stats.stddev.end()), float_options)
          .view({1, channels, 1, 1})
          .to(images.device());
  Batch batch;
  batch.images = images.to(torch::kFloat).div_(255.0).sub_(mean).div_(stddev);
  batch.labels = split.labels.index_select(0, device_indices);
  batch.valid_count = indices.size(0);
  return batch;
}

}  // namespace scalestudy::data
