// The DDPM trainer's size presets, as in the seed's EMNIST trainer: the side the 28 x 28
// IDX images are resized to, the per-GPU batch that fills a 48 GB GPU, and the UNet's
// channel multiplier per resolution level (larger images get one more halving, so the
// lowest levels, where attention runs, stay small). Constants; thread-safe.
//   small 28 x 28, batch 2048 | medium 64 x 64, 384 | large 96 x 96, 96 | xl 128 x 128, 32
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::ddpm {

struct SizePreset {
  std::string name;
  int64_t image_size = 0;  // height = width, in pixels
  int64_t per_gpu_batch = 0;
  std::vector<int64_t> channel_multipliers;  // one per level, highest resolution first
};

std::vector<std::string> size_preset_names();
// An unknown name is an error listing the presets.
Result<SizePreset> find_size_preset(const std::string& name);

}  // namespace scalestudy::ddpm
