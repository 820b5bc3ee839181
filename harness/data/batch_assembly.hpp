// Turns sample indices into a training or evaluation batch: gathers the uint8 images,
// applies augmentation (random crop from a zero-padded image, horizontal flip) with
// randomness drawn from an explicit seed, converts to float and normalises per channel.
// Whole-batch tensor operations, no per-pixel loops; runs on the device the split's
// tensors live on. Pure functions; thread-safe for concurrent reads of one split.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

struct AugmentOptions {
  int64_t crop_padding = 0;      // pad each side by this many pixels, then crop H x W; 0: off
  bool horizontal_flip = false;  // mirror half of the samples; off for digit data sets
  bool enabled() const { return crop_padding > 0 || horizontal_flip; }
};

struct Batch {
  torch::Tensor images;     // float32 [B, C, H, W], normalised
  torch::Tensor labels;     // int64 [B]
  int64_t valid_count = 0;  // leading samples that count; < B only for evaluation padding
  int64_t index = 0;        // 0-based position of the batch in its epoch
};

// The seed of one batch's augmentation: distinct per (seed, epoch, rank, batch), so a run is
// reproducible and independent of how far the prefetcher ran ahead.
uint64_t augmentation_seed(uint64_t seed, int64_t epoch, int rank, int64_t batch_index);

// `indices`: int64 [B] on any device. `stats` must have one entry per channel.
// Padding pixels are 0 before normalisation, as torchvision's RandomCrop(padding=p).
Batch assemble_batch(const ImageSplit& split, const torch::Tensor& indices,
                     const ChannelStats& stats, const AugmentOptions& augment,
                     uint64_t augment_seed);

}  // namespace scalestudy::data
