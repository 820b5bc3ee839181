#include "orchestrator/results/report/plots.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

Report two_point_report(StudyFixture& study) {
  for (int world_size : {1, 2}) {
    FixtureRun run;
    run.run_id = "plot" + std::to_string(world_size);
    run.world_size = world_size;
    run.tasks_per_node = world_size;
    run.samples_per_s = world_size == 1 ? 100 : 170;
    run.per_gpu_batch = 64 / world_size;
    run.varied = {{"world_size", std::to_string(world_size)}};
    study.add_run(run);
  }
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  auto report = build_report(*db);
  REQUIRE(report.is_ok());
  return *report;
}

// Labels that would run commands if they reached gnuplot as written: a newline ends a
// string and starts a command line (system, !, a quote left open), and backquotes,
// double quotes, backslashes and macros try the other ways in. Each creates MARKER<i>.
std::vector<std::string> hostile_labels(const std::string& marker) {
  return {"x\nsystem \"touch " + marker + "1\"\n#",
          "it's\n!touch " + marker + "2\n'",
          "`touch " + marker + "3`",
          "a\" ; system \"touch " + marker + "4\" ; \"",
          "b\\\nsystem 'touch " + marker + "5'\r\n",
          "@cmd\ncmd = \"system('touch " + marker + "6')\"\n@cmd\n"};
}

std::string head(const std::string& path, size_t bytes) {
  std::ifstream file(path, std::ios::binary);
  std::string text(bytes, '\0');
  file.read(text.data(), static_cast<std::streamsize>(bytes));
  return text;
}

}  // namespace

TEST_CASE("plots: SVG and PNG files with the right signatures when gnuplot exists") {
  StudyFixture study("plots", "strong");
  Report report = two_point_report(study);
  auto outcome = write_plots(report, {study.dir() + "/report", "gnuplot"});
  REQUIRE_MESSAGE(outcome.is_ok(), outcome.status().message());
  if (!outcome->warnings.empty() && outcome->files.empty()) {
    MESSAGE("gnuplot is not installed: " << outcome->warnings.front());
    return;
  }
  CHECK(outcome->warnings.empty());
  for (const char* name : {"throughput", "efficiency", "accuracy", "phases", "memory_per_rank"}) {
    const std::string png = study.dir() + "/report/" + name + ".png";
    const std::string svg = study.dir() + "/report/" + name + ".svg";
    REQUIRE(std::filesystem::exists(png));
    CHECK(std::filesystem::file_size(png) > 1000);
    CHECK(head(png, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    CHECK(head(svg, 400).find("<svg") != std::string::npos);
  }
  const std::string phases = head(study.dir() + "/report/phases.dat", 4096);
  CHECK(phases.find("\"1 rank\" ") != std::string::npos);
  CHECK(phases.find("\"2 ranks\" ") != std::string::npos);
  std::vector<std::string> svgs;
  for (const auto& file : outcome->files) {
    if (file.size() > 4 && file.substr(file.size() - 4) == ".svg") svgs.push_back(file);
  }
  const std::string html = render_report(report, ReportFormat::kHtml, svgs);
  CHECK(html.find("<table>") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("<?xml") == std::string::npos);
}

TEST_CASE("plots: a missing gnuplot is a warning, not an error") {
  StudyFixture study("plots_missing", "strong");
  Report report = two_point_report(study);
  auto outcome = write_plots(report, {study.dir() + "/report", "gnuplot-not-installed-here"});
  REQUIRE(outcome.is_ok());
  CHECK(outcome->files.empty());
  REQUIRE(outcome->warnings.size() == 1);
  CHECK(outcome->warnings[0].find("not found") != std::string::npos);
}

TEST_CASE("plots: hostile labels and study names are drawn, never run") {
  StudyFixture study("plots_hostile", "strong");
  const std::string marker = study.dir() + "/MARKER";
  const std::vector<std::string> labels = hostile_labels(marker);
  int index = 0;
  for (const std::string& label : labels) {
    for (int world_size : {1, 2}) {
      FixtureRun run;
      run.run_id = "hostile" + std::to_string(index++);
      run.world_size = world_size;
      run.tasks_per_node = world_size;
      run.per_gpu_batch = 64 / world_size;
      run.varied = {{"world_size", std::to_string(world_size)}, {"label", label}};
      study.add_run(run);
    }
  }
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  auto report = build_report(*db);
  REQUIRE(report.is_ok());
  report->study = "s\nsystem \"touch " + marker + "0\"\n#";  // as a study row could name it

  auto outcome = write_plots(*report, {study.dir() + "/report", "gnuplot"});
  REQUIRE_MESSAGE(outcome.is_ok(), outcome.status().message());
  if (!outcome->warnings.empty() && outcome->files.empty()) {
    MESSAGE("gnuplot is not installed: " << outcome->warnings.front());
    return;
  }
  for (const auto& entry : std::filesystem::directory_iterator(study.dir())) {
    CAPTURE(entry.path().string());
    CHECK(entry.path().filename().string().rfind("MARKER", 0) != 0);
  }
  std::string warnings;
  for (const auto& warning : outcome->warnings) warnings += warning + "\n";
  INFO(warnings);
  CHECK(outcome->warnings.empty());
  CHECK(std::filesystem::file_size(study.dir() + "/report/throughput.svg") > 1000);
  const std::string throughput = head(study.dir() + "/report/throughput.gp", 1 << 16);
  CHECK(throughput.find("\nsystem") == std::string::npos);
  CHECK(throughput.find("\n!touch") == std::string::npos);
}
