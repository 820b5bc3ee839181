#include "workloads/ddpm/png_grid.hpp"

#include <png.h>

#include <cmath>

namespace scalestudy::ddpm {

torch::Tensor to_pixels(const torch::Tensor& images) {
  return ((images.to(torch::kCPU, torch::kFloat) + 1) * 127.5)
      .round()
      .clamp(0, 255)
      .to(torch::kByte);
}

torch::Tensor tile_grid(const torch::Tensor& pixels, int64_t padding_px) {
  const int64_t count = pixels.size(0), channels = pixels.size(1);
  const int64_t height = pixels.size(2), width = pixels.size(3);
  const auto columns = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(count))));
  const int64_t rows = (count + columns - 1) / columns;
  torch::Tensor grid = torch::zeros({channels, rows * (height + padding_px) + padding_px,
                                     columns * (width + padding_px) + padding_px},
                                    torch::kByte);
  for (int64_t index = 0; index < count; ++index) {
    const int64_t top = padding_px + (index / columns) * (height + padding_px);
    const int64_t left = padding_px + (index % columns) * (width + padding_px);
    grid.narrow(1, top, height).narrow(2, left, width).copy_(pixels[index]);
  }
  return grid;
}

Status write_png(const torch::Tensor& picture, const std::string& path) {
  const int64_t channels = picture.size(0);
  if (picture.dim() != 3 || (channels != 1 && channels != 3) ||
      picture.scalar_type() != torch::kByte) {
    return Status::error("write_png: expected uint8 [1 or 3, H, W], got " +
                         std::string(picture.toString()) + " " + c10::str(picture.sizes()));
  }
  // libpng wants interleaved rows: H x W x C.
  torch::Tensor rows = picture.permute({1, 2, 0}).contiguous();
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(picture.size(2));
  image.height = static_cast<png_uint_32>(picture.size(1));
  image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&image, path.c_str(), 0, rows.data_ptr<uint8_t>(), 0, nullptr)) {
    std::string message = image.message;
    png_image_free(&image);
    return Status::error("cannot write " + path + ": " + message);
  }
  return Status::ok();
}

}  // namespace scalestudy::ddpm
