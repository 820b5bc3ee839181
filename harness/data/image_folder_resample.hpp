// Fits a decoded RGB image to the fixed square size a pack stores: the centred square of
// side min(height, width) (torchvision's Resize(size) + CenterCrop(size)) is resampled to
// size x size with a triangle (bilinear) filter widened by the scale factor when shrinking,
// so downscaling averages an area instead of aliasing (PIL's antialiased bilinear). A square
// input of the target size is copied exactly. The output is planar CHW, the layout of an
// ImageSplit. Pure functions; thread-safe.
#pragma once

#include <cstdint>

namespace scalestudy::data {

// `rgb_hwc`: height x width x 3 interleaved; `out_chw`: 3 x out_size x out_size.
void resample_center_square(const uint8_t* rgb_hwc, int64_t height, int64_t width, int64_t out_size,
                            uint8_t* out_chw);

}  // namespace scalestudy::data
