// `scalestudy report --site DIR` opened in a real browser: headless Chromium screenshots the
// index and a history page (not blank; the history plot's line drawn), every link of every
// page resolves to a file, and hostile parameter values reach no page unescaped. The
// results: a printing study over 4 campaigns, slower from the third, whose configurations
// are named by hostile strings.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"
#include "tests/results/headless_chromium.hpp"
#include "tests/results/printing_study.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy::testing;
using scalestudy::common::ProcessResult;
namespace fs = std::filesystem;

namespace {

const char kScript[] = "<script>alert(1)</script>";
const char kImage[] = "\"><img src=x onerror=alert(2)>";

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
  CHECK(index.not_white() > index.pixels() / 200);  // text and a table, not a blank page
  const Screenshot plot =
      screenshot(*chromium, site / "studies/hostile/history.html", dir / "history.png");
  CHECK(plot.not_white() > plot.pixels() / 100);
  const size_t plot_blue = plot.near(0x1f, 0x5f, 0xa8);  // the series' line and points
  CHECK(plot_blue > 200);
  MESSAGE("index: " << index.not_white() << " of " << index.pixels()
                    << " pixels drawn; history: " << plot_blue << " in the plot's blue");
}
