// A page opened by headless Chromium, for the suites that render HTML: its screenshot's
// pixels and what they drew. Header-only; the including suite links scalestudy_common and
// libpng.
#pragma once

#include <doctest/doctest.h>
#include <png.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"

namespace scalestudy::testing {

struct Screenshot {
  std::vector<png_byte> rgba;  // 4 bytes a pixel

  size_t pixels() const { return rgba.size() / 4; }
  // Pixels that are not (nearly) white: text, tables, plots.
  size_t not_white() const {
    size_t count = 0;
    for (size_t i = 0; i + 3 < rgba.size(); i += 4) {
      count += rgba[i] < 245 || rgba[i + 1] < 245 || rgba[i + 2] < 245;
    }
    return count;
  }
  // Pixels within 24 of the colour in each channel (a plot's line or dots).
  size_t near(int red, int green, int blue) const {
    size_t count = 0;
    for (size_t i = 0; i + 3 < rgba.size(); i += 4) {
      count += std::abs(rgba[i] - red) < 24 && std::abs(rgba[i + 1] - green) < 24 &&
               std::abs(rgba[i + 2] - blue) < 24;
    }
    return count;
  }
};

// `page` drawn in a window of `window` ("width,height") into `png`; the test stops when
// Chromium drew nothing readable.
inline Screenshot screenshot(const std::string& chromium, const std::filesystem::path& page,
                             const std::filesystem::path& png,
                             const std::string& window = "1000,800") {
  auto shot = common::run_process(
      {{chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--window-size=" + window, "--screenshot=" + png.string(), "file://" + page.string()},
       {},
       120'000});
  REQUIRE(shot.is_ok());
  INFO(shot->stderr_text);
  REQUIRE(std::filesystem::exists(png));
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_file(&image, png.string().c_str()));
  image.format = PNG_FORMAT_RGBA;
  Screenshot seen;
  seen.rgba.resize(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, seen.rgba.data(), 0, nullptr));
  REQUIRE_FALSE(seen.rgba.empty());
  return seen;
}

}  // namespace scalestudy::testing
