// The PNG grid of --sample: [-1, 1] to pixels, tiles at their grid positions, and files
// that libpng reads back byte for byte (grayscale and RGB), with PNG's signature and an
// IHDR carrying the grid's size.
#include <png.h>

#include <filesystem>
#include <fstream>

#include "tests/harness/child_process.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "workloads/ddpm/png_grid.hpp"

namespace scalestudy::ddpm {
namespace {

// Reads a PNG with libpng into uint8 [C, H, W] in the file's own format.
torch::Tensor read_png(const std::string& path, int64_t channels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_file(&image, path.c_str()));
  image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  torch::Tensor rows = torch::empty({image.height, image.width, channels}, torch::kByte);
  REQUIRE(png_image_finish_read(&image, nullptr, rows.data_ptr<uint8_t>(), 0, nullptr));
  return rows.permute({2, 0, 1}).contiguous();
}

uint32_t big_endian_at(const std::string& bytes, size_t offset) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return value;
}

}  // namespace

TEST_CASE("to_pixels maps the model's [-1, 1] onto 0..255, clamping outliers") {
  torch::Tensor pixels =
      to_pixels(torch::tensor({-1.5, -1.0, 0.0, 0.5, 1.0, 2.0}).view({1, 1, 1, 6}));
  CHECK((pixels.scalar_type() == torch::kByte));
  std::vector<int64_t> expected = {0, 0, 128, 191, 255, 255};
  for (int64_t i = 0; i < 6; ++i) CHECK(pixels.view(-1)[i].item<int64_t>() == expected[i]);
}

TEST_CASE("tile_grid places image i at row i / columns, column i % columns") {
  // Five 3 x 4 images, each filled with its index + 1: a 3-column, 2-row grid.
  torch::Tensor pixels =
      (torch::arange(1, 6, torch::kByte)).view({5, 1, 1, 1}).expand({5, 1, 3, 4});
  torch::Tensor grid = tile_grid(pixels.contiguous(), 2);
  REQUIRE(grid.sizes() == torch::IntArrayRef({1, 2 * (3 + 2) + 2, 3 * (4 + 2) + 2}));
  for (int64_t index = 0; index < 5; ++index) {
    CAPTURE(index);
    int64_t top = 2 + (index / 3) * 5, left = 2 + (index % 3) * 6;
    torch::Tensor tile = grid[0].narrow(0, top, 3).narrow(1, left, 4);
    CHECK(tile.eq(index + 1).all().item<bool>());
  }
  // Padding and the sixth, unused cell stay black: the tiles hold all the non-zero pixels.
  CHECK(grid.to(torch::kLong).sum().item<int64_t>() == (1 + 2 + 3 + 4 + 5) * 12);
}

TEST_CASE("write_png: libpng reads back the same pixels, with the grid's size in IHDR") {
  const std::string dir = testing::fresh_dir("ddpm-png");
  torch::manual_seed(2);
  for (int64_t channels : {1, 3}) {
    CAPTURE(channels);
    torch::Tensor picture = torch::randint(0, 256, {channels, 17, 23}, torch::kByte);
    const std::string path = dir + "/grid" + std::to_string(channels) + ".png";
    REQUIRE(write_png(picture, path).is_ok());
    CHECK(torch::equal(read_png(path, channels), picture));
    std::string bytes = testing::read_text(path);
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    CHECK(bytes.substr(12, 4) == "IHDR");
    CHECK(big_endian_at(bytes, 16) == 23);                          // width
    CHECK(big_endian_at(bytes, 20) == 17);                          // height
    CHECK(static_cast<int>(bytes[25]) == (channels == 1 ? 0 : 2));  // colour type
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_png rejects pictures it cannot store and unwritable paths") {
  auto two_channels = write_png(torch::zeros({2, 4, 4}, torch::kByte), "/tmp/never.png");
  REQUIRE_FALSE(two_channels.is_ok());
  CHECK(two_channels.message().find("expected uint8 [1 or 3, H, W]") != std::string::npos);
  REQUIRE_FALSE(write_png(torch::zeros({1, 4, 4}), "/tmp/never.png").is_ok());  // float
  auto missing = write_png(torch::zeros({1, 4, 4}, torch::kByte), "/nonexistent/dir/x.png");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.message().find("/nonexistent/dir/x.png") != std::string::npos);
}

}  // namespace scalestudy::ddpm
