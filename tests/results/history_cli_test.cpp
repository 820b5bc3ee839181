// `scalestudy history` on a real study measured again and again: a printing program (the
// "measure any program" path) run as 8 campaigns of 3 repeats on the local executor, 30 %
// slower from campaign 5 on; and a steady one. The change point, the CI gate before and
// after the slowdown, campaigns reached as STUDY@CAMPAIGN, and the pages.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/results/printing_study.hpp"
#include "tests/support/cli_test_support.hpp"

using namespace scalestudy::testing;
using scalestudy::common::ProcessResult;
namespace fs = std::filesystem;

namespace {

nlohmann::json history_json(const std::string& study, const std::string& results) {
  ProcessResult shown =
      run_cli({"history", study, "--results-dir", results, "--format", "json"}, 120'000);
  INFO(shown.stdout_text << shown.stderr_text);
  REQUIRE(shown.exit_code == 0);
  return nlohmann::json::parse(shown.stdout_text);
}

int check_exit(const std::string& study, const std::string& results) {
  return run_cli({"history", study, "--results-dir", results, "--check"}, 120'000).exit_code;
}

}  // namespace

TEST_CASE("a slowdown from campaign 5 on is one change point there, and the gate closes") {
  const fs::path dir = scratch_dir("history_cli");
  const std::string results = (dir / "results").string();
  const std::string study = write_printing_study(dir, "printing");
  for (int campaign = 1; campaign <= 8; ++campaign) {
    CAPTURE(campaign);
    run_printing_campaign(study, results, campaign, campaign >= 5 ? 0.7 : 1.0);
    CHECK(check_exit("printing", results) == (campaign >= 5 ? 1 : 0));
  }
  // Within a campaign a submit resumes: nothing is run twice.
  ProcessResult again = run_cli(
      {"submit", study, "--scheduler", "local", "--results-dir", results, "--campaign", "c2"});
  INFO(again.stdout_text << again.stderr_text);
  CHECK(again.exit_code == 0);
  CHECK(again.stdout_text.find("0 submitted, 3 completed") != std::string::npos);
  const nlohmann::json history = history_json("printing", results);
  REQUIRE(history["campaigns"].size() == 8);
  CHECK(history["campaigns"][0]["name"] == "c1");
  REQUIRE(history["points"].size() == 1);
  const nlohmann::json& point = history["points"][0];
  REQUIRE(point["series"].size() == 8);
  CHECK(point["series"][0]["ci95_half_width"].is_number());  // 3 repeats a campaign
  REQUIRE(point["change_points"].size() == 1);
  const nlohmann::json& change = point["change_points"][0];
  CHECK(change["campaign"] == "c5");
  CHECK(change["slower"] == true);
  CHECK(change["change_pct"].get<double>() == doctest::Approx(-30).epsilon(0.05));
  CHECK(change["pvalue"].get<double>() < 0.001);
  REQUIRE(history["open_regressions"].size() == 1);
  CHECK(history["open_regressions"][0]["campaign"] == "c5");

  // A campaign is reached as STUDY@CAMPAIGN: compare the last two before and after.
  ProcessResult compared = run_cli(
      {"compare", "printing@c4", "printing@c5", "--results-dir", results, "--no-ingest"}, 120'000);
  INFO(compared.stdout_text << compared.stderr_text);
  CHECK(compared.exit_code == 1);
  CHECK(compared.stdout_text.find("slower") != std::string::npos);
  ProcessResult status =
      run_cli({"status", "printing@c3", "--results-dir", results, "--format", "json"});
  CHECK(status.exit_code == 0);
  CHECK(nlohmann::json::parse(status.stdout_text)["runs"].size() == 3);
  // Each campaign its own runs: the same run ids, measured again.
  CHECK(fs::exists(fs::path(results) / "printing@c1.sqlite"));
  CHECK(fs::exists(fs::path(results) / "printing@c8" / "runs"));

  // The page: the series drawn, the change point marked.
  ProcessResult page =
      run_cli({"history", "printing", "--results-dir", results, "--format", "html"}, 120'000);
  REQUIRE(page.exit_code == 0);
  CHECK(page.stdout_text.find("<svg") != std::string::npos);
  CHECK(page.stdout_text.find("class=\"change-point\"") != std::string::npos);
  // Every format; --point selects points by label.
  for (const char* format : {"table", "md", "csv"}) {
    ProcessResult shown = run_cli(
        {"history", "printing", "--results-dir", results, "--format", format, "--point", "N=1"});
    CAPTURE(format);
    CHECK(shown.exit_code == 0);
    CHECK(shown.stdout_text.find("c5") != std::string::npos);
  }
  ProcessResult no_point = run_cli(
      {"history", "printing", "--results-dir", results, "--format", "json", "--point", "N=64"});
  REQUIRE(no_point.exit_code == 0);
  CHECK(nlohmann::json::parse(no_point.stdout_text)["points"].empty());
  // --since leaves the older campaigns out: no change left to find.
  ProcessResult since = run_cli(
      {"history", "printing", "--results-dir", results, "--since", "2999-01-01", "--check"});
  CHECK(since.exit_code == 3);
}

TEST_CASE("a steady study has no change point and passes the gate") {
  const fs::path dir = scratch_dir("history_cli_steady");
  const std::string results = (dir / "results").string();
  const std::string study = write_printing_study(dir, "steady");
  for (int campaign = 1; campaign <= 8; ++campaign) {
    run_printing_campaign(study, results, campaign, 1.0);
  }
  const nlohmann::json history = history_json("steady", results);
  REQUIRE(history["points"].size() == 1);
  CHECK(history["points"][0]["series"].size() == 8);
  CHECK(history["points"][0]["change_points"].empty());
  CHECK(history["open_regressions"].empty());
  CHECK(check_exit("steady", results) == 0);
}

TEST_CASE("history and compare refuse a threshold, window or p-value that is not finite") {
  // NaN compares false with every bound: a gate given one could never fire.
  for (const std::string flag : {"--threshold-pct", "--window", "--max-pvalue"}) {
    for (const std::string value : {"nan", "inf", "-inf"}) {
      ProcessResult history = run_cli({"history", "any-study", flag, value}, 60'000);
      INFO(flag << " " << value << ": " << history.stderr_text);
      CHECK(history.exit_code == 2);
      CHECK(history.stderr_text.find("takes a finite number") != std::string::npos);
    }
  }
  ProcessResult compare = run_cli({"compare", "a", "b", "--threshold-pct", "nan"}, 60'000);
  INFO(compare.stderr_text);
  CHECK(compare.exit_code == 2);
  CHECK(compare.stderr_text.find("takes a finite number") != std::string::npos);
}
