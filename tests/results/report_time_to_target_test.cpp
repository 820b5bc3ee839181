// Time-to-accuracy in the report on hand-computed fixtures: speedup and efficiency to target
// against the series' baseline, an older run database without the keys read as no target,
// and the accuracy check after the same number of epochs: worse beyond the noise of 3
// repeats is flagged, the same accuracy within noise is not, one repeat or repeats of one
// seed (identical figures) give no verdict.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

// A strong-scaling run that reached val accuracy 0.85 after `seconds` in epoch 2, with
// `final_acc` at epoch 2; no target at all when `seconds` is 0.
FixtureRun target_run(const std::string& id, int world_size, int repeat, double seconds,
                      double final_acc) {
  FixtureRun run;
  run.run_id = id;
  run.repeat = repeat;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.global_batch = 64;
  run.per_gpu_batch = 64 / world_size;
  run.varied = {{"world_size", std::to_string(world_size)}};
  run.val_acc = {0.80, final_acc};
  if (seconds > 0) {
    run.extra_summary = {
        {"target_val_accuracy", 0.85}, {"time_to_target_s", seconds}, {"time_to_target_epoch", 2}};
  }
  return run;
}

// One repeat of a point: seconds to the target (0: no target) and accuracy at epoch 2.
struct Repeat {
  double seconds;
  double final_acc;
};

// Adds the point's repeats at `world_size`, run ids <prefix>1, <prefix>2, ...
void add_point(StudyFixture& study, const std::string& prefix, int world_size,
               const std::vector<Repeat>& repeats) {
  for (size_t r = 0; r < repeats.size(); ++r) {
    study.add_run(target_run(prefix + std::to_string(r + 1), world_size, static_cast<int>(r),
                             repeats[r].seconds, repeats[r].final_acc));
  }
}

const ReportPoint& point_at(const Report& report, int world_size) {
  for (const auto& point : report.points) {
    if (point.world_size == world_size) return point;
  }
  FAIL("no point at world size " << world_size);
  return report.points.front();
}

}  // namespace

TEST_CASE("time to target: speedup and efficiency vs the baseline; worse accuracy flagged") {
  StudyFixture study("ttt", "strong");
  // N=1: 100 s to target, accuracy 0.90 ± 0.01 at epoch 2.
  add_point(study, "a", 1, {{100, 0.90}, {110, 0.91}, {90, 0.89}});
  // N=2: 80 s (speedup 1.25, efficiency 62.5%), accuracy 0.84 ± 0.01: worse beyond noise.
  add_point(study, "b", 2, {{80, 0.84}, {85, 0.85}, {75, 0.83}});
  // N=4: one repeat, reached in 50 s: no accuracy verdict.
  add_point(study, "c", 4, {{50, 0.80}});
  const Report report = report_of(study);

  const ReportPoint& base = point_at(report, 1);
  REQUIRE(base.to_target);
  CHECK(base.to_target->metric == "val_accuracy");
  CHECK(base.to_target->value == doctest::Approx(0.85));
  CHECK(base.to_target->reached_runs == 3);
  CHECK(*base.to_target->time_s == doctest::Approx(100));
  CHECK(*base.to_target->speedup == doctest::Approx(1));
  CHECK_FALSE(base.accuracy_vs_baseline);

  const ReportPoint& two = point_at(report, 2);
  REQUIRE(two.to_target);
  CHECK(*two.to_target->time_s == doctest::Approx(80));
  CHECK(*two.to_target->epoch == doctest::Approx(2));
  CHECK(*two.to_target->speedup == doctest::Approx(1.25));
  CHECK(*two.to_target->efficiency == doctest::Approx(0.625));
  REQUIRE(two.accuracy_vs_baseline);
  CHECK(two.accuracy_vs_baseline->epoch == 2);
  CHECK(two.accuracy_vs_baseline->change == doctest::Approx(-6));
  REQUIRE(two.accuracy_vs_baseline->worse);
  CHECK(*two.accuracy_vs_baseline->worse);
  CHECK(has_warning(report, "N=2: val_accuracy after epoch 2 is worse than the baseline's"));

  const ReportPoint& four = point_at(report, 4);
  CHECK(*four.to_target->efficiency == doctest::Approx(0.5));
  REQUIRE(four.accuracy_vs_baseline);
  CHECK_FALSE(four.accuracy_vs_baseline->worse);  // one repeat: no verdict
  CHECK_FALSE(has_warning(report, "N=4: val_accuracy"));

  const auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["points"][1]["time_to_target"]["speedup"] == doctest::Approx(1.25));
  CHECK(json["points"][1]["accuracy_vs_baseline"]["worse"] == true);
  CHECK(json["points"][2]["accuracy_vs_baseline"]["worse"].is_null());
  const std::string table = render_report(report, ReportFormat::kTable);
  INFO(table);
  CHECK(table.find("eff to target [%]") != std::string::npos);
  CHECK(table.find("WORSE") != std::string::npos);
  CHECK(widest_line(table) <= 120);
}

TEST_CASE("time to target: the same accuracy within noise is not worse; no keys, no target") {
  StudyFixture study("ttt_noise", "strong");
  add_point(study, "a", 1, {{100, 0.90}, {100, 0.88}});
  add_point(study, "b", 2, {{0, 0.89}, {0, 0.90}});  // written before the keys existed
  const Report report = report_of(study);
  const ReportPoint& two = point_at(report, 2);
  CHECK_FALSE(two.to_target);
  REQUIRE(two.accuracy_vs_baseline);
  REQUIRE(two.accuracy_vs_baseline->worse);
  CHECK_FALSE(*two.accuracy_vs_baseline->worse);
  CHECK(point_at(report, 1).to_target->reached_runs == 2);
}

TEST_CASE("time to target: repeats of one seed give no accuracy verdict, however close") {
  StudyFixture study("ttt_seed", "strong");
  add_point(study, "a", 1, {{100, 0.90}, {100, 0.90}});
  add_point(study, "b", 2, {{60, 0.89}, {60, 0.89}});
  const Report report = report_of(study);
  const ReportPoint& two = point_at(report, 2);
  REQUIRE(two.accuracy_vs_baseline);
  CHECK(two.accuracy_vs_baseline->identical_repeats);
  CHECK_FALSE(two.accuracy_vs_baseline->worse);
  CHECK_FALSE(has_warning(report, "worse than the baseline"));
  CHECK(render_report(report, ReportFormat::kTable).find("no verdict: identical repeats") !=
        std::string::npos);
}

TEST_CASE("time to target: a study without a target prints no table, unless accuracy fell") {
  StudyFixture study("ttt_none", "strong");
  add_point(study, "a", 1, {{0, 0.90}, {0, 0.88}});
  add_point(study, "b", 2, {{0, 0.89}, {0, 0.90}});
  const Report same = report_of(study);
  CHECK(render_report(same, ReportFormat::kTable).find("Time to target") == std::string::npos);

  StudyFixture fell("ttt_fell", "strong");
  add_point(fell, "a", 1, {{0, 0.90}, {0, 0.91}, {0, 0.90}});
  add_point(fell, "b", 2, {{0, 0.80}, {0, 0.81}, {0, 0.80}});
  const std::string table = render_report(report_of(fell), ReportFormat::kTable);
  CHECK(table.find("Time to target") != std::string::npos);
  CHECK(table.find("WORSE") != std::string::npos);
}

TEST_CASE("time to target: runs that never reached it are counted and warned about") {
  StudyFixture study("ttt_missed", "weak");
  add_point(study, "a", 1, {{100, 0.90}});
  FixtureRun missed = target_run("b1", 2, 0, 0, 0.80);
  missed.extra_summary = {{"target_val_accuracy", 0.85}};
  study.add_run(missed);
  const Report report = report_of(study);
  const ReportPoint& two = point_at(report, 2);
  REQUIRE(two.to_target);
  CHECK(two.to_target->runs == 1);
  CHECK(two.to_target->reached_runs == 0);
  CHECK_FALSE(two.to_target->time_s);
  CHECK_FALSE(two.to_target->speedup);
  CHECK(has_warning(report, "1 of 1 runs never reached the target"));
}
