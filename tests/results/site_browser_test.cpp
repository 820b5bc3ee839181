// `scalestudy report --site DIR` opened in a real browser: headless Chromium screenshots the
// index and a history page (not blank; the history plot's line drawn), every link of every
// page resolves to a file, and hostile parameter values reach no page unescaped. The
// results: a printing study over 4 campaigns, slower from the third, whose configurations
// are named by hostile strings.
#include <doctest/doctest.h>
#include <png.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"
#include "tests/results/printing_study.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy::testing;
using scalestudy::common::ProcessResult;
namespace fs = std::filesystem;

namespace {

const char kScript[] = "<script>alert(1)</script>";
const char kImage[] = "\"><img src=x onerror=alert(2)>";

// The RGBA pixels of a PNG file; empty when it cannot be read.
std::vector<png_byte> pixels_of(const std::string& path, png_uint_32& width) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return {};
  image.format = PNG_FORMAT_RGBA;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) return {};
  width = image.width;
  return pixels;
}

struct Screenshot {
  size_t pixels = 0, not_white = 0, plot_blue = 0;
};

Screenshot screenshot(const std::string& chromium, const fs::path& page, const fs::path& png) {
  auto shot = scalestudy::common::run_process(
      {{chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--window-size=1000,800", "--screenshot=" + png.string(), "file://" + page.string()},
       {},
       120'000});
  REQUIRE(shot.is_ok());
  INFO(shot->stderr_text);
  REQUIRE(fs::exists(png));
  png_uint_32 width = 0;
  const std::vector<png_byte> rgba = pixels_of(png.string(), width);
  REQUIRE_FALSE(rgba.empty());
  Screenshot seen;
  for (size_t i = 0; i + 3 < rgba.size(); i += 4) {
    ++seen.pixels;
    const int r = rgba[i], g = rgba[i + 1], b = rgba[i + 2];
    if (r < 245 || g < 245 || b < 245) ++seen.not_white;
    // The history plot's line and points: #1f5fa8.
    if (std::abs(r - 0x1f) < 24 && std::abs(g - 0x5f) < 24 && std::abs(b - 0xa8) < 24) {
      ++seen.plot_blue;
    }
  }
  return seen;
}

}  // namespace

TEST_CASE("the results site in headless Chromium: drawn, linked, escaped") {
  const auto chromium = scalestudy::common::find_on_path("chromium");
  if (!chromium) SKIP_UNLESS_INSTALLED("no chromium (apt-get install chromium)");
  const fs::path dir = scratch_dir("site_browser");
  const std::string results = (dir / "results").string();
  const std::string study = write_printing_study(
      dir, "hostile", std::string("matrix:\n  label: ['") + kScript + "', '" + kImage + "']\n");
  for (int campaign = 1; campaign <= 4; ++campaign) {
    run_printing_campaign(study, results, campaign, campaign >= 3 ? 0.7 : 1.0);
  }
  const fs::path site = dir / "site";
  ProcessResult written = run_cli({"report", "--site", site.string(), "--results-dir", results});
  INFO(written.stdout_text << written.stderr_text);
  REQUIRE(written.exit_code == 0);

  // Every page: hostile values escaped, every link a file.
  const std::regex link("href=\"([^\"#]+)\"");
  size_t pages = 0, links = 0;
  for (const auto& entry : fs::recursive_directory_iterator(site)) {
    if (entry.path().extension() != ".html") continue;
    ++pages;
    const std::string html = read_file(entry.path().string());
    CAPTURE(entry.path().string());
    CHECK(html.find("<script>alert") == std::string::npos);
    CHECK(html.find("<img src=x") == std::string::npos);
    for (auto match = std::sregex_iterator(html.begin(), html.end(), link);
         match != std::sregex_iterator(); ++match) {
      ++links;
      const std::string target = (*match)[1].str();
      CAPTURE(target);
      CHECK(fs::is_regular_file(entry.path().parent_path() / target));
    }
  }
  CHECK(pages == 4);  // index, and the study's report, history and compare
  CHECK(links >= 4);
  const std::string history = read_file((site / "studies/hostile/history.html").string());
  CHECK(history.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(read_file((site / "index.html").string()).find("class=\"regression\"") !=
        std::string::npos);

  const Screenshot index = screenshot(*chromium, site / "index.html", dir / "index.png");
  CHECK(index.not_white > index.pixels / 200);  // text and a table, not a blank page
  const Screenshot plot =
      screenshot(*chromium, site / "studies/hostile/history.html", dir / "history.png");
  CHECK(plot.not_white > plot.pixels / 100);
  CHECK(plot.plot_blue > 200);  // the series' line and points
  MESSAGE("index: " << index.not_white << " of " << index.pixels
                    << " pixels drawn; history: " << plot.plot_blue << " in the plot's blue");
}
