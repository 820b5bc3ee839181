// Readers for the IDX format of MNIST, Fashion-MNIST and EMNIST: a big-endian header
// (two zero bytes, type 0x08 = unsigned byte, number of dimensions, one uint32 size per
// dimension) followed by the data. Files may be plain or gzip. Errors name the file and
// what is wrong (magic, dimensions, truncation, counts). Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

// One IDX file of unsigned bytes as a uint8 tensor shaped by its header; the header must
// declare `expected_dims` dimensions (3 for images, 1 for labels).
Result<torch::Tensor> read_idx_ubyte(const std::string& path, int64_t expected_dims);

// An images file [N, H, W] and a labels file [N] as a split with C = 1. EMNIST stores
// images transposed (column-major); `transpose_images` turns them upright.
Result<ImageSplit> read_idx_split(const std::string& images_path, const std::string& labels_path,
                                  bool transpose_images);

}  // namespace scalestudy::data
