// DeviceBatchLoader: GPU-resident input for data sets that fit in device memory (the MNIST
// family, CIFAR-10). The split is uploaded once as uint8 (zero-padded once for random
// crops); every epoch's permutation is drawn on the device (torch::randperm with an
// explicitly seeded generator of the device, identical on every rank); each batch is
// gathered, cropped, flipped and normalised by a handful of batched tensor kernels with
// per-sample offsets drawn on the device too. Nothing in batch() copies between host and
// device or synchronises, so the data phase costs a few kernel launches and no waiting.
//
// Sharding follows data::train_shard through the same data::BatchGeometry: global batch k
// is permutation positions [k * global_batch, (k + 1) * global_batch) and rank r takes
// positions r, r + world, ... of it; the epoch's tail that does not fill a global batch is
// dropped. The permutation (from seed and epoch) differs from the CPU loader's host-side
// one; augmentation draws come from (seed, epoch, rank, batch), so batch(i) is the same
// whatever was called before.
//
// The same code runs on CPU tensors (tests). Used by one thread; batch() changes the
// generators' state.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "harness/core/status.hpp"
#include "harness/data/batch_assembly.hpp"
#include "harness/data/batch_geometry.hpp"
#include "harness/data/image_dataset.hpp"

namespace scalestudy::gpu {

struct DeviceLoaderOptions {
  int64_t global_batch = 0;  // split evenly over the ranks
  data::RankInWorld where;
  uint64_t seed = 0;
  bool shuffle = true;
  data::AugmentOptions augment;
  at::MemoryFormat memory_format = at::MemoryFormat::Contiguous;  // ChannelsLast for NHWC
};

struct DeviceBatch {
  torch::Tensor images;          // float32 [B, C, H, W] on the device, normalised
  torch::Tensor labels;          // int64 [B]
  torch::Tensor sample_indices;  // int64 [B]: positions in the split
};

class DeviceBatchLoader {
 public:
  static Result<DeviceBatchLoader> create(const data::ImageSplit& split,
                                          const data::ChannelStats& stats, torch::Device device,
                                          DeviceLoaderOptions options);

  int64_t per_rank_batch() const { return geometry_.per_rank_batch(); }
  int64_t batches_per_epoch() const { return geometry_.steps_per_epoch(); }
  // Draws the epoch's permutation (0-based epoch). Call before batch().
  void start_epoch(int64_t epoch);
  // Batch `batch_index` in [0, batches_per_epoch()) of the current epoch.
  DeviceBatch batch(int64_t batch_index);

 private:
  explicit DeviceBatchLoader(data::BatchGeometry geometry) : geometry_(geometry) {}
  torch::Tensor crop_and_flip_indices(const torch::Tensor& samples, int64_t batch_index);

  DeviceLoaderOptions options_;
  data::BatchGeometry geometry_;
  torch::Tensor padded_images_;  // uint8 [N, C, H + 2p, W + 2p] on the device
  torch::Tensor labels_;         // int64 [N] on the device
  torch::Tensor scale_;          // float [1, C, 1, 1]: 1 / (255 * stddev)
  torch::Tensor shift_;          // float [1, C, 1, 1]: mean / stddev
  torch::Tensor permutation_;    // int64 [N] of the current epoch
  at::Generator generator_;
  int64_t channels_ = 0, height_ = 0, width_ = 0;
  int64_t epoch_ = -1;
};

// A generator of `device`'s kind seeded with `seed`, independent of the global default
// generator's state (a clone of the device's default generator, reseeded).
at::Generator make_seeded_generator(torch::Device device, uint64_t seed);

}  // namespace scalestudy::gpu
