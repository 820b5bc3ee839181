#include "harness/gpu/device_loader.hpp"

#include <mutex>

#include "harness/data/seed_mixing.hpp"

namespace scalestudy::gpu {

at::Generator make_seeded_generator(torch::Device device, uint64_t seed) {
  at::Generator default_generator = at::globalContext().defaultGenerator(device);
  at::Generator generator;
  {
    std::lock_guard<std::mutex> lock(default_generator.mutex());
    generator = default_generator.clone();
  }
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_current_seed(seed);
  return generator;
}

Result<DeviceBatchLoader> DeviceBatchLoader::create(const data::ImageSplit& split,
                                                    const data::ChannelStats& stats,
                                                    torch::Device device,
                                                    DeviceLoaderOptions options) {
  auto geometry = data::BatchGeometry::create(split.size(), options.global_batch, options.where);
  if (!geometry) return geometry.status().with_context("device loader");
  if (split.images.dim() != 4 || split.images.scalar_type() != torch::kUInt8) {
    return Status::error("device loader: images must be uint8 [N, C, H, W]");
  }
  const int64_t channels = split.images.size(1);
  if (static_cast<int64_t>(stats.mean.size()) != channels ||
      static_cast<int64_t>(stats.stddev.size()) != channels) {
    return Status::error("device loader: normalization has " + std::to_string(stats.mean.size()) +
                         " means and " + std::to_string(stats.stddev.size()) +
                         " standard deviations for " + std::to_string(channels) + " channels");
  }
  if (options.augment.crop_padding < 0) {
    return Status::error("device loader: crop padding " +
                         std::to_string(options.augment.crop_padding) + " is negative");
  }

  DeviceBatchLoader loader(*geometry);
  loader.options_ = options;
  loader.channels_ = channels;
  loader.height_ = split.images.size(2);
  loader.width_ = split.images.size(3);
  const int64_t pad = options.augment.crop_padding;
  torch::Tensor images = split.images.to(device).contiguous();
  loader.padded_images_ =
      pad > 0 ? torch::constant_pad_nd(images, {pad, pad, pad, pad}, 0).contiguous() : images;
  loader.labels_ = split.labels.to(device, torch::kLong);
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat);
  torch::Tensor mean = torch::tensor(stats.mean, float_options.dtype(torch::kDouble));
  torch::Tensor stddev = torch::tensor(stats.stddev, float_options.dtype(torch::kDouble));
  loader.scale_ =
      (1.0 / (255.0 * stddev)).to(float_options.device(device)).view({1, channels, 1, 1});
  loader.shift_ = (mean / stddev).to(float_options.device(device)).view({1, channels, 1, 1});
  loader.generator_ = make_seeded_generator(device, options.seed);
  return loader;
}

void DeviceBatchLoader::start_epoch(int64_t epoch) {
  epoch_ = epoch;
  const int64_t size = labels_.size(0);
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(labels_.device());
  if (!options_.shuffle) {
    permutation_ = torch::arange(size, long_options);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.set_current_seed(data::mix_seed(options_.seed ^ data::mix_seed(epoch)));
  }
  permutation_ = torch::randperm(size, generator_, long_options);
}

torch::Tensor DeviceBatchLoader::crop_and_flip_indices(const torch::Tensor& samples,
                                                       int64_t batch_index) {
  const data::AugmentOptions& augment = options_.augment;
  const int64_t batch = samples.size(0);
  const int64_t padded_height = padded_images_.size(2), padded_width = padded_images_.size(3);
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(samples.device());
  {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.set_current_seed(
        data::augmentation_seed(options_.seed, epoch_, geometry_.where().rank, batch_index));
  }
  const int64_t positions = 2 * augment.crop_padding + 1;
  torch::Tensor row_offsets = torch::randint(positions, {batch, 1}, generator_, long_options);
  torch::Tensor col_offsets = torch::randint(positions, {batch, 1}, generator_, long_options);
  torch::Tensor col_steps = torch::arange(width_, long_options);
  if (augment.horizontal_flip) {
    torch::Tensor flipped =
        torch::randint(2, {batch, 1}, generator_, long_options).to(torch::kBool);
    col_steps = torch::where(flipped, col_steps.flip(0), col_steps);
  }
  // One flat index per output element: sample, channel, row and column strides summed.
  const int64_t plane = padded_height * padded_width;
  torch::Tensor rows = (row_offsets + torch::arange(height_, long_options)) * padded_width;
  torch::Tensor cols = col_offsets + col_steps;
  return (samples * (channels_ * plane)).view({batch, 1, 1, 1}) +
         (torch::arange(channels_, long_options) * plane).view({1, channels_, 1, 1}) +
         rows.view({batch, 1, height_, 1}) + cols.view({batch, 1, 1, width_});
}

DeviceBatch DeviceBatchLoader::batch(int64_t batch_index) {
  const int64_t global_batch = geometry_.global_batch();
  torch::Tensor samples = permutation_.narrow(0, batch_index * global_batch, global_batch)
                              .view({geometry_.per_rank_batch(), geometry_.where().world_size})
                              .select(1, geometry_.where().rank);
  torch::Tensor pixels = options_.augment.enabled()
                             ? padded_images_.take(crop_and_flip_indices(samples, batch_index))
                             : padded_images_.index_select(0, samples);
  torch::Tensor images =
      pixels.to(torch::kFloat, /*non_blocking=*/false, /*copy=*/false, options_.memory_format)
          .mul_(scale_)
          .sub_(shift_);
  return DeviceBatch{std::move(images), labels_.index_select(0, samples), samples};
}

}  // namespace scalestudy::gpu
