#include "harness/data/image_folder_resample.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace scalestudy::data {
namespace {

constexpr int64_t kChannels = 3;

// The input pixels and normalised weights that make each output pixel along one axis.
struct FilterTaps {
  std::vector<int64_t> first;  // first input pixel of output pixel o
  std::vector<int64_t> count;  // number of taps of output pixel o
  std::vector<float> weights;  // `stride` entries per output pixel, `count` of them used
  int64_t stride = 0;
};

// Maps the input interval [box_start, box_start + box_extent) onto out_size pixels.
FilterTaps make_taps(int64_t in_size, double box_start, double box_extent, int64_t out_size) {
  const double scale = box_extent / static_cast<double>(out_size);
  const double support = std::max(scale, 1.0);  // triangle half-width, in input pixels
  // Taps stay inside the box: the crop is taken first, as if it were the whole image.
  const int64_t box_first = std::max<int64_t>(0, static_cast<int64_t>(std::floor(box_start)));
  const int64_t box_end =
      std::min<int64_t>(in_size, static_cast<int64_t>(std::ceil(box_start + box_extent)));
  FilterTaps taps;
  taps.stride = static_cast<int64_t>(std::ceil(support)) * 2 + 2;
  taps.first.resize(out_size);
  taps.count.resize(out_size);
  taps.weights.assign(out_size * taps.stride, 0.0f);
  for (int64_t o = 0; o < out_size; ++o) {
    const double center = box_start + (static_cast<double>(o) + 0.5) * scale;
    const int64_t low = std::max(box_first, static_cast<int64_t>(std::floor(center - support)));
    const int64_t high = std::min(box_end, static_cast<int64_t>(std::ceil(center + support)));
    double total = 0;
    std::vector<double> raw;
    for (int64_t i = low; i < high; ++i) {
      raw.push_back(
          std::max(0.0, 1.0 - std::abs((static_cast<double>(i) + 0.5 - center) / support)));
      total += raw.back();
    }
    taps.first[o] = low;
    taps.count[o] = static_cast<int64_t>(raw.size());
    for (size_t k = 0; k < raw.size(); ++k) {
      taps.weights[o * taps.stride + static_cast<int64_t>(k)] = static_cast<float>(raw[k] / total);
    }
  }
  return taps;
}

uint8_t to_pixel(float value) {
  return static_cast<uint8_t>(std::clamp(value, 0.0f, 255.0f) + 0.5f);
}

}  // namespace

void resample_center_square(const uint8_t* rgb_hwc, int64_t height, int64_t width, int64_t out_size,
                            uint8_t* out_chw) {
  const int64_t plane = out_size * out_size;
  if (height == out_size && width == out_size) {
    for (int64_t pixel = 0; pixel < plane; ++pixel) {
      for (int64_t c = 0; c < kChannels; ++c) out_chw[c * plane + pixel] = rgb_hwc[pixel * 3 + c];
    }
    return;
  }
  const double side = static_cast<double>(std::min(height, width));
  const FilterTaps across =
      make_taps(width, (static_cast<double>(width) - side) / 2, side, out_size);
  const FilterTaps down =
      make_taps(height, (static_cast<double>(height) - side) / 2, side, out_size);

  // Horizontal pass over the rows the vertical taps read: rows x out_size x 3 floats.
  const int64_t first_row = down.first.front();
  const int64_t end_row = down.first.back() + down.count.back();
  std::vector<float> rows((end_row - first_row) * out_size * kChannels);
  for (int64_t y = first_row; y < end_row; ++y) {
    const uint8_t* source = rgb_hwc + y * width * kChannels;
    float* target = rows.data() + (y - first_row) * out_size * kChannels;
    for (int64_t x = 0; x < out_size; ++x) {
      const float* weights = across.weights.data() + x * across.stride;
      float sum[kChannels] = {0, 0, 0};
      for (int64_t k = 0; k < across.count[x]; ++k) {
        const uint8_t* pixel = source + (across.first[x] + k) * kChannels;
        for (int64_t c = 0; c < kChannels; ++c) sum[c] += weights[k] * pixel[c];
      }
      for (int64_t c = 0; c < kChannels; ++c) target[x * kChannels + c] = sum[c];
    }
  }
  for (int64_t y = 0; y < out_size; ++y) {
    const float* weights = down.weights.data() + y * down.stride;
    for (int64_t x = 0; x < out_size; ++x) {
      float sum[kChannels] = {0, 0, 0};
      for (int64_t k = 0; k < down.count[y]; ++k) {
        const float* pixel =
            rows.data() + ((down.first[y] + k - first_row) * out_size + x) * kChannels;
        for (int64_t c = 0; c < kChannels; ++c) sum[c] += weights[k] * pixel[c];
      }
      for (int64_t c = 0; c < kChannels; ++c) {
        out_chw[c * plane + y * out_size + x] = to_pixel(sum[c]);
      }
    }
  }
}

}  // namespace scalestudy::data
