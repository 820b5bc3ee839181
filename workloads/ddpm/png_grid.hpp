// Writes generated images as one PNG picture: a grid of ceil(sqrt(N)) columns with
// `padding_px` black pixels around every tile, 8-bit grayscale for one channel or RGB for
// three, through libpng's simplified write API. Pure functions apart from the file;
// thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::ddpm {

// float [N, C, H, W] in [-1, 1] (the model's range) -> uint8 [N, C, H, W] in [0, 255].
torch::Tensor to_pixels(const torch::Tensor& images);

// uint8 [N, C, H, W] -> uint8 [C, rows * (H + padding) + padding, columns * (W + padding) +
// padding], tiles in row-major order, unused cells black.
torch::Tensor tile_grid(const torch::Tensor& pixels, int64_t padding_px);

// uint8 [C, H, W] with C 1 or 3; the error names the path and libpng's message.
Status write_png(const torch::Tensor& picture, const std::string& path);

}  // namespace scalestudy::ddpm
