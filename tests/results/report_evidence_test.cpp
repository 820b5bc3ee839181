// The report's evidence rules on hand-computed fixtures: thresholds marked and checked,
// runs that overlapped on a host, `${repeat}`-derived parameters grouped with the repeat,
// and the sensitivity verdict's significance with 1 and with 5 repeats.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/interference.hpp"
#include "orchestrator/results/analysis/thresholds.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

FixtureRun scaled_run(const std::string& id, int world_size, double samples_per_s, int repeat) {
  FixtureRun run;
  run.run_id = id;
  run.repeat = repeat;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.global_batch = 128;
  run.per_gpu_batch = 128 / world_size;
  run.samples_per_s = samples_per_s;
  run.varied = {{"world_size", std::to_string(world_size)},
                {"per_gpu_batch", std::to_string(128 / world_size)}};
  return run;
}

// Strong scaling at efficiencies 100%, 90%, 80% (100, 180, 320 samples/s on 1, 2, 4 ranks).
void add_strong_points(StudyFixture& study) {
  study.add_run(scaled_run("t1", 1, 100, 0));
  study.add_run(scaled_run("t2", 2, 180, 0));
  study.add_run(scaled_run("t4", 4, 320, 0));
}

FixtureRun sensitivity_run(const std::string& bucket, int repeat, double samples_per_s) {
  FixtureRun run;
  run.run_id = "b" + bucket + "r" + std::to_string(repeat);
  run.repeat = repeat;
  run.varied = {{"bucket_cap_mb", bucket}};
  run.samples_per_s = samples_per_s;
  return run;
}

}  // namespace

TEST_CASE("thresholds: points below report.thresholds.efficiency_pct are marked everywhere") {
  StudyFixture study("threshold_marks", "strong", "{}",
                     R"({"thresholds": {"efficiency_pct": 85}})");
  add_strong_points(study);
  Report report = report_of(study);
  REQUIRE(report.efficiency_threshold_pct.has_value());
  CHECK(*report.efficiency_threshold_pct == doctest::Approx(85));
  REQUIRE(report.points.size() == 3);
  CHECK_FALSE(report.points[0].below_efficiency_threshold);  // 100%
  CHECK_FALSE(report.points[1].below_efficiency_threshold);  // 90%
  CHECK(report.points[2].below_efficiency_threshold);        // 80%
  CHECK(count_threshold_misses(report) == 1);
  CHECK(has_warning(report, "N=4: efficiency 80.0% is below the threshold 85.0%"));

  const std::string table = render_report(report, ReportFormat::kTable);
  CHECK(table.find("efficiency ≥ 85.0%") != std::string::npos);
  CHECK(table.find("MISSED") != std::string::npos);
  CHECK(render_report(report, ReportFormat::kCsv).find("MISSED") != std::string::npos);
  CHECK(render_report(report, ReportFormat::kMarkdown).find("MISSED") != std::string::npos);
  CHECK(render_report(report, ReportFormat::kHtml).find("MISSED") != std::string::npos);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["settings"]["efficiency_pct"] == 85.0);
  CHECK(json["points"][2]["below_efficiency_threshold"] == true);
  CHECK(json["points"][1]["below_efficiency_threshold"] == false);

  ReportOptions stricter;
  stricter.efficiency_threshold_pct = 95;
  CHECK(count_threshold_misses(report_of(study, stricter)) == 2);
}

TEST_CASE("thresholds: without efficiency_pct nothing is marked or missed") {
  StudyFixture study("threshold_none", "strong");
  add_strong_points(study);
  Report report = report_of(study);
  CHECK_FALSE(report.efficiency_threshold_pct.has_value());
  CHECK(count_threshold_misses(report) == 0);
  CHECK(render_report(report, ReportFormat::kTable).find("MISSED") == std::string::npos);
}

TEST_CASE("find_overlaps: pairs of runs on one host whose windows intersect") {
  const std::vector<RunWindow> windows = {
      {"a", "node1", 0, 100},   {"b", "node1", 60, 200},  // overlap 40 s
      {"c", "node1", 200, 300},                           // touches b: no overlap
      {"d", "node2", 50, 150},                            // other host
      {"e", "node1", 10, 20},                             // inside a: 10 s
  };
  const auto overlaps = find_overlaps(windows);
  REQUIRE(overlaps.size() == 2);
  CHECK(overlaps[0].run_a == "a");
  CHECK(overlaps[0].run_b == "e");
  CHECK(overlaps[0].overlap_s == doctest::Approx(10));
  CHECK(overlaps[1].run_a == "a");
  CHECK(overlaps[1].run_b == "b");
  CHECK(overlaps[1].overlap_s == doctest::Approx(40));
  CHECK(overlaps[1].host == "node1");
}

TEST_CASE("report flags runs that ran at the same time on one host") {
  StudyFixture study("overlapping_runs", "strong");
  FixtureRun one = scaled_run("q1", 1, 100, 0);
  one.started_at = "2025-01-01T00:00:00Z";
  one.finished_at = "2025-01-01T00:01:00Z";
  FixtureRun two = scaled_run("q2", 2, 90, 0);  // starts 15 s before one finishes
  two.started_at = "2025-01-01T00:00:45Z";
  two.finished_at = "2025-01-01T00:02:00Z";
  FixtureRun elsewhere = scaled_run("q4", 4, 300, 0);
  elsewhere.host = "host1";
  elsewhere.started_at = "2025-01-01T00:00:00Z";
  elsewhere.finished_at = "2025-01-01T00:02:00Z";
  study.add_run(one);
  study.add_run(two);
  study.add_run(elsewhere);
  Report report = report_of(study);
  REQUIRE(report.overlaps.size() == 1);
  CHECK(report.overlaps[0].run_a == "q1");
  CHECK(report.overlaps[0].run_b == "q2");
  CHECK(report.overlaps[0].overlap_s == doctest::Approx(15));
  CHECK(has_warning(report,
                    "runs q1 (N=1) and q2 (N=2) ran at the same time for 15 s on host "
                    "host0"));
}

TEST_CASE("runs one after another are not flagged") {
  StudyFixture study("sequential_runs", "strong");
  add_strong_points(study);
  CHECK(report_of(study).overlaps.empty());
}

TEST_CASE("a parameter set by ${repeat} belongs to the repeat, not the configuration") {
  // Weak study, seed: ${repeat}, 3 repeats at 2 scales: 2 points of 3 repeats, not 6 of 1.
  StudyFixture study("repeat_seed", "weak");
  for (int world_size : {1, 2}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      FixtureRun run = scaled_run("w" + std::to_string(world_size) + std::to_string(repeat),
                                  world_size, 100.0 * world_size + repeat, repeat);
      run.varied["seed"] = std::to_string(repeat);
      study.add_run(run);
    }
  }
  Report report = report_of(study);
  REQUIRE(report.points.size() == 2);
  for (const auto& point : report.points) {
    CHECK(point.config_label == "default");
    CHECK(point.run_ids.size() == 3);
    CHECK(point.throughput_samples_per_s.ci95_half_width.has_value());
  }
}

TEST_CASE("a parameter that varies within a repeat stays a configuration") {
  // Sensitivity, 2 repeats of bucket_cap_mb 1 and 25: repeat 0 has both values.
  StudyFixture study("repeat_not_seed", "sensitivity", R"({"bucket_cap_mb": "25"})");
  for (int repeat = 0; repeat < 2; ++repeat) {
    study.add_run(sensitivity_run("1", repeat, 100));
    study.add_run(sensitivity_run("25", repeat, 100));
  }
  CHECK(report_of(study).points.size() == 2);
}

TEST_CASE("sensitivity verdict with 1 repeat: cannot judge, needs 3 repeats") {
  StudyFixture study("verdict_one", "sensitivity", R"({"bucket_cap_mb": "25"})");
  study.add_run(sensitivity_run("25", 0, 1000));
  study.add_run(sensitivity_run("1", 0, 1066));
  Report report = report_of(study);
  REQUIRE(report.sensitivity.has_value());
  CHECK(report.sensitivity->best_config == "bucket_cap_mb=1");
  CHECK(report.sensitivity->best_throughput_change_pct == doctest::Approx(6.6));
  CHECK(report.sensitivity->repeats == 1);
  CHECK_FALSE(report.sensitivity->significant.has_value());
  CHECK(*report.sensitivity->repeats_needed == 3);
  CHECK(unwrapped(render_report(report, ReportFormat::kTable))
            .find("cannot judge significance with 1 repeat: needs ≥ 3 repeats") !=
        std::string::npos);
}

TEST_CASE("sensitivity verdict when every setting trails the baseline: none beat it") {
  StudyFixture study("verdict_trailing", "sensitivity", R"({"bucket_cap_mb": "25"})");
  study.add_run(sensitivity_run("25", 0, 1000));
  study.add_run(sensitivity_run("1", 0, 990));
  study.add_run(sensitivity_run("4", 0, 960));
  Report report = report_of(study);
  REQUIRE(report.sensitivity.has_value());
  CHECK_FALSE(report.sensitivity->beats_baseline());
  CHECK(report.sensitivity->best_config == "bucket_cap_mb=1");
  const std::string table = render_report(report, ReportFormat::kTable);
  CHECK(table.find("no setting beat the baseline (bucket_cap_mb=25); closest: bucket_cap_mb=1 "
                   "(-1.0% throughput") != std::string::npos);
  CHECK(table.find("best configuration") == std::string::npos);
}

TEST_CASE("sensitivity verdict with 5 repeats: within noise, and significant") {
  // Base: 100 ± 7.9057 (100, 110, 90, 105, 95); bucket 1: the same noise shifted by 6.6.
  // se = sqrt(2 · 62.5 / 5) = 5; t = 6.6 / 5 = 1.32 < t(0.975, 8) = 2.306: within noise.
  // cv = 7.9057%: repeats = ⌈2 · 2.802² · (7.9057 / 6.6)²⌉ = ⌈22.53⌉ = 23.
  const double noise[] = {0, 10, -10, 5, -5};
  StudyFixture noisy("verdict_noisy", "sensitivity", R"({"bucket_cap_mb": "25"})");
  for (int repeat = 0; repeat < 5; ++repeat) {
    noisy.add_run(sensitivity_run("25", repeat, 100 + noise[repeat]));
    noisy.add_run(sensitivity_run("1", repeat, 106.6 + noise[repeat]));
  }
  Report report = report_of(noisy);
  REQUIRE(report.sensitivity.has_value());
  CHECK(report.sensitivity->repeats == 5);
  CHECK(*report.sensitivity->welch_t == doctest::Approx(1.32));
  CHECK_FALSE(*report.sensitivity->significant);
  CHECK(*report.sensitivity->repeats_needed == 23);
  CHECK(unwrapped(render_report(report, ReportFormat::kTable))
            .find("within noise (Welch's t = 1.32, 5 repeats): needs ≥ 23 repeats") !=
        std::string::npos);

  // Base: 100 ± 1.5811 (100, 102, 98, 101, 99); bucket 1: 110 with the same noise.
  // se = sqrt(2 · 2.5 / 5) = 1; t = 10: significant.
  const double quiet[] = {0, 2, -2, 1, -1};
  StudyFixture steady("verdict_steady", "sensitivity", R"({"bucket_cap_mb": "25"})");
  for (int repeat = 0; repeat < 5; ++repeat) {
    steady.add_run(sensitivity_run("25", repeat, 100 + quiet[repeat]));
    steady.add_run(sensitivity_run("1", repeat, 110 + quiet[repeat]));
  }
  Report significant = report_of(steady);
  CHECK(*significant.sensitivity->welch_t == doctest::Approx(10));
  CHECK(*significant.sensitivity->significant);
  CHECK_FALSE(significant.sensitivity->repeats_needed.has_value());
  CHECK(unwrapped(render_report(significant, ReportFormat::kTable))
            .find("significant at 5% (Welch's t = 10.00, 5 repeats)") != std::string::npos);
}
