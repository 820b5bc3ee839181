// Energy and clocks from a real scalestudy-train run on the CPU, with the stand-in NVML of
// this folder loaded as its NVML (--nvml-library): the stand-in's energy counter rises by
// 90 J at each read, and from the end of the first measured window on its SM clock falls
// from 1980 to 1410 MHz with hw thermal slowdown while power rises to 350 W. The run is
// ingested into a strong-scaling study, whose report shows the exact joules per sample,
// the power, and the clock-drop warning in every format.
// clang-format off
#include "tests/harness/torch_doctest.hpp"  // before run_database_reader.hpp includes doctest
// clang-format on

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_cells.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/results/fixture.hpp"

namespace scalestudy {
namespace {

constexpr double kJoulesPerWindow = 90.0;  // the stand-in's FAKE_NVML_ENERGY_STEP_MJ
constexpr const char* kWarning =
    "SM clock fell from 1980 to 1410 MHz during the measured steps: hw thermal slowdown";

std::vector<std::string> train_command(const std::string& out_dir, const std::string& run_id,
                                       const std::string& nvml_library) {
  return {testing::binary("scalestudy-train"),
          "--out-dir",
          out_dir,
          "--run-id",
          run_id,
          "--dataset",
          "synthetic",
          "--model",
          "small-cnn",
          "--epochs",
          "2",
          "--steps-per-epoch",
          "4",
          "--batch-size",
          "16",
          "--threads",
          "1",
          "--val-samples",
          "32",
          "--measure-warmup-steps",
          "2",
          "--log-interval",
          "0",
          "--telemetry-interval-ms",
          "5",
          "--nvml-library",
          nvml_library};
}

results::Report trained_study_report(const std::string& nvml_library) {
  results::testing::StudyFixture study("energy", "strong");
  results::testing::FixtureRun run;
  run.run_id = "energy-n1";
  run.global_batch = 16;
  run.per_gpu_batch = 16;
  run.write_rank_files = false;
  study.add_run(run);
  const std::string out_dir = study.out_dir(run.run_id);
  std::filesystem::create_directories(out_dir);
  auto trained = testing::run_to_end(train_command(out_dir, run.run_id, nvml_library), {},
                                     out_dir + "/out.txt", 180);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  REQUIRE(results::ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  auto report = results::build_report(*db);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  return *report;
}

TEST_CASE("a run's energy per sample, power and clock drop from NVML reach every report format") {
  // The run's own record: two measured windows (epochs), 90 J each.
  const std::string dir = testing::fresh_dir("energy-record");
  auto trained = testing::run_to_end(train_command(dir, "energy", SCALESTUDY_FAKE_NVML), {},
                                     dir + "/out.txt", 180);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const std::string rank0 = dir + "/rank0.sqlite";
  CHECK(testing::db_number(rank0, "SELECT count(*) FROM energy") == 2);
  CHECK(testing::db_number(rank0, "SELECT sum(energy_j) FROM energy") == 2 * kJoulesPerWindow);
  CHECK(testing::db_number(rank0, "SELECT sum(samples) FROM energy") ==
        testing::db_number(rank0, "SELECT sum(samples) FROM steps WHERE warmup = 0"));
  CHECK(testing::db_number(rank0, "SELECT max(peak_power_w) FROM energy") == 350);
  CHECK(testing::db_number(rank0, "SELECT sm_clock_max_mhz FROM energy WHERE epoch = 1") == 1980);
  CHECK(testing::db_number(rank0, "SELECT min(sm_clock_min_mhz) FROM energy") == 1410);
  CHECK(testing::db_number(rank0,
                           "SELECT count(*) FROM energy WHERE clock_events = 'hw thermal "
                           "slowdown' AND unavailable = ''") == 2);
  const double measured_samples =
      testing::db_number(rank0, "SELECT sum(samples) FROM steps WHERE warmup = 0");
  const double joules_per_sample = 2 * kJoulesPerWindow / measured_samples;

  const results::Report report = trained_study_report(SCALESTUDY_FAKE_NVML);
  REQUIRE(report.points.size() == 1);
  const results::ReportPoint& point = report.points[0];
  REQUIRE(point.joules_per_sample);
  // The study's run is a second run of the same shape: same samples, same 180 J.
  CHECK(*point.joules_per_sample == doctest::Approx(joules_per_sample));
  CHECK(point.peak_power_w == 350);
  REQUIRE(point.avg_power_w);
  CHECK(*point.avg_power_w > 0);

  const std::string per_sample = results::magnitude(joules_per_sample);
  for (auto format : {results::ReportFormat::kTable, results::ReportFormat::kMarkdown,
                      results::ReportFormat::kHtml, results::ReportFormat::kWideTable}) {
    const std::string rendered = results::render_report(report, format);
    CAPTURE(static_cast<int>(format));
    CHECK(rendered.find("energy [J/sample]") != std::string::npos);
    CHECK(rendered.find(per_sample) != std::string::npos);
    CHECK(rendered.find("avg power/GPU [W]") != std::string::npos);
    CHECK(rendered.find("peak power [W]") != std::string::npos);
    CHECK(rendered.find(results::magnitude(*point.avg_power_w)) != std::string::npos);
    CHECK(rendered.find("1410–1980") != std::string::npos);
    CHECK(rendered.find(std::string("run energy-n1 rank 0 (cpu): ") + kWarning) !=
          std::string::npos);
  }
  // CSV holds the tables alone (no warnings).
  const std::string csv = results::render_report(report, results::ReportFormat::kCsv);
  CHECK(csv.find("# Energy and clocks over the measured steps") != std::string::npos);
  CHECK(csv.find(per_sample) != std::string::npos);
  CHECK(csv.find("hw thermal slowdown") != std::string::npos);
  const auto json = nlohmann::json::parse(results::render_report_json(report));
  const auto& energy = json["points"][0]["energy"];
  CHECK(energy["joules_per_sample"].get<double>() == doctest::Approx(joules_per_sample));
  CHECK(energy["avg_power_w"].get<double>() == doctest::Approx(*point.avg_power_w));
  CHECK(energy["peak_power_w"].get<double>() == 350);
  CHECK(energy["sm_clock_max_mhz"].get<double>() == 1980);
  CHECK(energy["sm_clock_min_mhz"].get<double>() == 1410);
  CHECK(energy["clock_events"] == "hw thermal slowdown");
  CHECK(energy["unavailable"] == "");
  bool warned = false;
  for (const auto& warning : json["warnings"]) {
    warned |= warning.get<std::string>().find(kWarning) != std::string::npos;
  }
  CHECK(warned);
}

TEST_CASE("without NVML the energy figures are empty and the report says why") {
  const results::Report report = trained_study_report("libscalestudy-no-such-nvml.so.1");
  REQUIRE(report.points.size() == 1);
  const results::ReportPoint& point = report.points[0];
  CHECK(point.energy_recorded);
  CHECK_FALSE(point.joules_per_sample);
  CHECK(point.energy_unavailable.rfind("NVML unavailable: ", 0) == 0);
  for (auto format : {results::ReportFormat::kTable, results::ReportFormat::kMarkdown,
                      results::ReportFormat::kHtml, results::ReportFormat::kCsv}) {
    const std::string rendered = results::render_report(report, format);
    CAPTURE(static_cast<int>(format));
    CHECK(rendered.find("Energy and clocks over the measured steps") != std::string::npos);
    CHECK((format == results::ReportFormat::kCsv ||
           rendered.find("empty: NVML unavailable: ") != std::string::npos));
    CHECK(rendered.find("SM clock fell") == std::string::npos);
  }
  const auto json = nlohmann::json::parse(results::render_report_json(report));
  CHECK(json["points"][0]["energy"]["joules_per_sample"].is_null());
  CHECK(json["points"][0]["energy"]["unavailable"].get<std::string>().rfind("NVML unavailable: ",
                                                                            0) == 0);
}

}  // namespace
}  // namespace scalestudy
