#include "harness/data/idx_format.hpp"

#include <cstdio>

#include "harness/data/file_bytes.hpp"

namespace scalestudy::data {
namespace {

constexpr uint8_t kUnsignedByteType = 0x08;

uint32_t read_big_endian_u32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

}  // namespace

Result<torch::Tensor> read_idx_ubyte(const std::string& path, int64_t expected_dims) {
  Result<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.status();
  const size_t header_bytes = 4 + 4 * static_cast<size_t>(expected_dims);
  if (bytes->size() < 4) {
    return Status::error(path + ": truncated: " + std::to_string(bytes->size()) +
                         " bytes, shorter than the 4-byte IDX magic number");
  }
  const uint8_t* data = bytes->data();
  if (data[0] != 0 || data[1] != 0 || data[2] != kUnsignedByteType) {
    char magic[16];
    std::snprintf(magic, sizeof(magic), "0x%02x%02x%02x%02x", data[0], data[1], data[2], data[3]);
    return Status::error(path + ": bad IDX magic number " + magic +
                         " (expected 0x000008nn: unsigned bytes, nn dimensions)");
  }
  if (data[3] != expected_dims) {
    return Status::error(path + ": IDX header declares " + std::to_string(data[3]) +
                         " dimensions, expected " + std::to_string(expected_dims));
  }
  if (bytes->size() < header_bytes) {
    return Status::error(path + ": truncated: " + std::to_string(bytes->size()) +
                         " bytes, shorter than the " + std::to_string(header_bytes) +
                         "-byte IDX header");
  }
  std::vector<int64_t> shape;
  int64_t payload_bytes = 1;
  for (int64_t d = 0; d < expected_dims; ++d) {
    shape.push_back(read_big_endian_u32(data + 4 + 4 * d));
    payload_bytes *= shape.back();
  }
  const int64_t actual_payload_bytes = static_cast<int64_t>(bytes->size() - header_bytes);
  if (actual_payload_bytes != payload_bytes) {
    return Status::error(path + ": " +
                         (actual_payload_bytes < payload_bytes ? "truncated" : "trailing data") +
                         ": header declares " + std::to_string(payload_bytes) +
                         " data bytes, file holds " + std::to_string(actual_payload_bytes));
  }
  return torch::from_blob(bytes->data() + header_bytes, shape, torch::kUInt8).clone();
}

Result<ImageSplit> read_idx_split(const std::string& images_path, const std::string& labels_path,
                                  bool transpose_images) {
  Result<torch::Tensor> images = read_idx_ubyte(images_path, 3);
  if (!images) return images.status();
  Result<torch::Tensor> labels = read_idx_ubyte(labels_path, 1);
  if (!labels) return labels.status();
  if (images->size(0) != labels->size(0)) {
    return Status::error(images_path + " holds " + std::to_string(images->size(0)) +
                         " images but " + labels_path + " holds " +
                         std::to_string(labels->size(0)) + " labels");
  }
  torch::Tensor upright = transpose_images ? images->transpose(1, 2) : *images;
  return ImageSplit{upright.unsqueeze(1).contiguous(), labels->to(torch::kLong)};
}

}  // namespace scalestudy::data
