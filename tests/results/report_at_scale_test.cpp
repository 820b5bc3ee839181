// Ingest, report, stragglers, history and the site at 1,024 ranks on 64 nodes, without
// 1,024 processes: the shared fixture's recorded H200 run made a 1,024-rank run
// (scaled_run.hpp) beside the recorded 1-GPU run, a weak-scaling study, with three planted
// outliers: rank 517 (node032) with 1.5 times the memory, rank 267 (node016) 40 ms late at
// every all-reduce, and node045 15 ms slow on all its 16 ranks. The terminal report must
// fit 80 lines of 120 columns and name each; JSON, CSV, --wide and the HTML report keep
// every rank.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "harness/core/sqlite.hpp"
#include "orchestrator/results/history/study_history.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "orchestrator/results/site/results_site.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/headless_chromium.hpp"
#include "tests/results/scaled_run.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;
namespace fs = std::filesystem;

namespace {

fs::path recorded_study_dir() {
  return fs::path(scalestudy::testing::source_dir()) / ".." / "shared" / "fixtures" /
         "h200-2026-11-28" / "lm-study";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct StudyAtScale {
  std::string results_dir, database;
  RankScale scale;
  IngestOutcome ingested;
  double write_s = 0, ingest_s = 0;
};

// Written and ingested once for the suite: 1,024 rank databases take seconds.
const StudyAtScale& study_at_scale() {
  static const StudyAtScale study = [] {
    StudyAtScale built;
    built.results_dir = scalestudy::testing::scratch_dir("report_at_scale").string();
    built.scale.outliers = planted_outliers(built.scale);
    const auto start = std::chrono::steady_clock::now();
    auto database =
        write_weak_study_at_scale(recorded_study_dir().string(), built.results_dir, built.scale);
    REQUIRE_MESSAGE(database.is_ok(), database.status().message());
    built.database = *database;
    built.write_s = seconds_since(start);
    const auto ingest_start = std::chrono::steady_clock::now();
    auto ingested = ingest_study(built.database);
    REQUIRE_MESSAGE(ingested.is_ok(), ingested.status().message());
    built.ingest_s = seconds_since(ingest_start);
    built.ingested = *ingested;
    return built;
  }();
  return study;
}

Report report_at_scale() {
  auto db = sqlite::Database::open(study_at_scale().database, sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto report = build_report(*db);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  return *report;
}

// `title`'s table in `text`: from the title to the blank line after it.
std::string section(const std::string& text, const std::string& title) {
  const size_t start = text.find(title);
  REQUIRE_MESSAGE(start != std::string::npos, title);
  return text.substr(start, text.find("\n\n", start) - start);
}

size_t lines_of(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

size_t rows_starting(const std::string& text, const std::string& start) {
  size_t rows = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) rows += line.rfind(start, 0) == 0;
  return rows;
}

// A row naming `rank` on `host`: the rank and host columns side by side.
bool names_rank(const std::string& table, int rank, const std::string& host) {
  return std::regex_search(table, std::regex("\\s" + std::to_string(rank) + "\\s+" + host + "\\s"));
}

const nlohmann::json& point_at(const nlohmann::json& report, int world_size) {
  for (const auto& point : report["points"]) {
    if (point["world_size"] == world_size) return point;
  }
  FAIL("no point at N=" << world_size);
  return report;
}

}  // namespace

#define REQUIRE_FIXTURE()                                                                   \
  do {                                                                                      \
    if (!fs::exists(recorded_study_dir())) {                                                \
      SKIP_UNLESS_INSTALLED("no shared GPU fixtures at " << recorded_study_dir().string()); \
    }                                                                                       \
  } while (false)

TEST_CASE("ingest reads the 1,024 rank databases of a 64-node run") {
  REQUIRE_FIXTURE();
  const StudyAtScale& study = study_at_scale();
  CHECK(study.ingested.ingested == 2);
  CHECK(study.ingested.failed == 0);
  auto db = sqlite::Database::open(study.database, sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto counts = db->query(
      "SELECT count(*), count(DISTINCT host), (SELECT count(*) FROM m_arrivals a WHERE "
      "a.run_id = r.run_id) FROM m_run r WHERE world_size = 1024");
  REQUIRE(counts.is_ok());
  CHECK(std::get<int64_t>((*counts)[0][0]) == 1024);
  CHECK(std::get<int64_t>((*counts)[0][1]) == 64);
  CHECK(std::get<int64_t>((*counts)[0][2]) == 1024 * 40);  // 40 measured steps a rank
  MESSAGE("1,024 rank databases written in " << study.write_s << " s, ingested in "
                                             << study.ingest_s << " s");
}

TEST_CASE("the terminal report at 1,024 ranks: 80 lines of 120 columns, every outlier named") {
  REQUIRE_FIXTURE();
  const PlantedOutliers& planted = study_at_scale().scale.outliers;
  REQUIRE(planted.high_memory_rank == 517);
  REQUIRE(planted.late_rank == 267);
  REQUIRE(planted.slow_node == 45);
  const auto start = std::chrono::steady_clock::now();
  const Report report = report_at_scale();
  const std::string text = render_report(report, ReportFormat::kTable);
  const double report_s = seconds_since(start);
  INFO(text);
  CHECK(lines_of(text) <= 80);
  CHECK(widest_line(text) <= 120);
  const std::string memory = section(text, "Memory per rank [GiB]");
  CHECK(names_rank(memory, 517, "node032"));
  CHECK(memory.find("+1,023 more") != std::string::npos);
  const std::string arrivals = section(text, "Arrival at the gradient all-reduce per rank");
  CHECK(names_rank(arrivals, 267, "node016"));
  CHECK(std::regex_search(arrivals, std::regex("\\s7[0-9][0-9]\\s+node045\\s")));  // 720..735
  const std::string hosts = section(text, "Hosts (stragglers");
  CHECK(std::regex_search(hosts, std::regex("\\nnode045 ")));
  CHECK(std::regex_search(hosts, std::regex("\\nnode016 ")));
  CHECK(hosts.find("+62 more") != std::string::npos);
  const std::string stragglers = section(text, "Stragglers (");
  CHECK(names_rank(stragglers, 267, "node016"));
  CHECK(stragglers.find("yes") != std::string::npos);
  const std::string markdown = render_report(report, ReportFormat::kMarkdown);
  CHECK(lines_of(markdown) <= 120);
  MESSAGE("terminal report: " << lines_of(text) << " lines, " << widest_line(text)
                              << " columns at most; markdown " << lines_of(markdown)
                              << " lines; built and rendered in " << report_s << " s");
}

TEST_CASE("JSON, CSV and --wide keep every rank of the 1,024 and every host") {
  REQUIRE_FIXTURE();
  const Report report = report_at_scale();
  const auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  const auto& point = point_at(json, 1024);
  REQUIRE(point["rank_memory"].size() == 1024);
  const auto& heavy = point["rank_memory"][517];
  CHECK(heavy["host"] == "node032");
  CHECK(heavy["gpu_peak_bytes"].get<double>() >
        1.4 * point["rank_memory"][0]["gpu_peak_bytes"].get<double>());
  REQUIRE(point["rank_arrivals"].size() == 1024);
  CHECK(point["rank_arrivals"][267]["host"] == "node016");
  CHECK(point["rank_arrivals"][267]["late_median_ms"].get<double>() ==
        doctest::Approx(40).epsilon(0.02));
  CHECK(point["rank_arrivals"][267]["last_share"] == 1.0);
  CHECK(point["rank_arrivals"][720]["late_median_ms"].get<double>() ==
        doctest::Approx(15).epsilon(0.05));
  CHECK(point["stragglers"][0]["rank"] == 267);
  CHECK(point["stragglers"][0]["stands_out"] == true);
  REQUIRE(json["straggler_hosts"].size() == 64);
  for (const auto& host : json["straggler_hosts"]) {
    if (host["host"] == "node045") {
      CHECK(host["late_median_ms"].get<double>() == doctest::Approx(15).epsilon(0.05));
    }
  }
  const std::string csv = render_report(report, ReportFormat::kCsv);
  const size_t memory = csv.find("# Memory per rank");
  REQUIRE(memory != std::string::npos);
  const std::string memory_csv = csv.substr(memory, csv.find("\n# ", memory + 1) - memory);
  CHECK(rows_starting(memory_csv, "1024,64,") == 1024);
  CHECK(rows_starting(memory_csv, "1,1,") == 1);
  const std::string wide = render_report(report, ReportFormat::kWideTable);
  // The title, the header and its rule, then a row per rank or host.
  CHECK(lines_of(section(wide, "Arrival at the gradient all-reduce per rank") + "\n") == 3 + 1024);
  CHECK(lines_of(section(wide, "Hosts (stragglers") + "\n") == 3 + 64);
}

TEST_CASE("the HTML report at 1,024 ranks: summaries, plots, every rank in <details>") {
  REQUIRE_FIXTURE();
  const std::string html = render_report(report_at_scale(), ReportFormat::kHtml);
  CHECK(std::count(html.begin(), html.end(), '\n') > 2 * 1024);  // a row per rank, twice
  size_t details = 0, plots = 0;
  for (size_t at = html.find("<details>"); at != std::string::npos;
       at = html.find("<details>", at + 1)) {
    ++details;
  }
  for (size_t at = html.find("<div class=\"members\"><svg"); at != std::string::npos;
       at = html.find("<div class=\"members\"><svg", at + 1)) {
    ++plots;
  }
  CHECK(details == 3);  // memory and arrivals per rank, the hosts
  CHECK(plots == 3);
  CHECK(html.size() < 1'000'000);
  const fs::path dir = fs::path(study_at_scale().results_dir) / "html";
  fs::create_directories(dir);
  std::ofstream(dir / "report.html") << html;
  MESSAGE("HTML report of 1,024 ranks: " << html.size() << " bytes");
  const auto chromium = common::find_on_path("chromium");
  if (!chromium) SKIP_UNLESS_INSTALLED("no chromium (apt-get install chromium)");
  const scalestudy::testing::Screenshot page = scalestudy::testing::screenshot(
      *chromium, dir / "report.html", dir / "report.png", "1200,2600");
  CHECK(page.not_white() > page.pixels() / 50);
  CHECK(page.near(0x1f, 0x5f, 0xa8) > 2000);  // the ranks' dots
  CHECK(page.near(0xc0, 0x39, 0x2b) > 50);    // the outliers, in red
  MESSAGE("in headless Chromium: " << page.not_white() << " of " << page.pixels()
                                   << " pixels drawn");
}

TEST_CASE("history and the site read the 1,024-rank study") {
  REQUIRE_FIXTURE();
  const StudyAtScale& study = study_at_scale();
  // A second campaign: the same measurements again.
  const fs::path again =
      fs::path(study.results_dir) / (std::string(kRecordedStudy) + "@again.sqlite");
  fs::copy_file(study.database, again, fs::copy_options::overwrite_existing);
  {
    auto db = sqlite::Database::open(again.string());
    REQUIRE(db.is_ok());
    REQUIRE(db->exec("UPDATE campaign SET name = 'again', created_at = '2026-11-29T00:00:00Z'")
                .is_ok());
  }
  auto history =
      load_study_history(study_campaigns(study.results_dir, kRecordedStudy), kRecordedStudy, {});
  REQUIRE_MESSAGE(history.is_ok(), history.status().message());
  CHECK(history->campaigns.size() == 2);
  bool at_scale = false;
  for (const HistorySeries& series : history->series) {
    if (series.point.find("N=1024") == std::string::npos) continue;
    at_scale = true;
    CHECK(series.entries.size() == 2);
  }
  CHECK(at_scale);

  const fs::path site = fs::path(study.results_dir) / "site";
  auto written =
      write_results_site({study.results_dir, site.string()}, site_databases(study.results_dir));
  REQUIRE_MESSAGE(written.is_ok(), written.status().message());
  const std::string page =
      scalestudy::testing::read_file((site / "studies" / kRecordedStudy / "report.html").string());
  CHECK(page.find("<details>") != std::string::npos);
  CHECK(page.find("<div class=\"members\"><svg") != std::string::npos);
  fs::remove(again);
}
