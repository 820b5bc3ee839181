// The scaling projection against the worked example of docs/projection.md, as pure
// arithmetic and through a report with --project.
#include "orchestrator/results/analysis/projection.hpp"

#include <doctest/doctest.h>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

constexpr double kGradientBytes = 44.8e6;
constexpr double kBucketBytes = 25.0 * 1024 * 1024;

BandwidthCurve flat_curve(int world_size) {
  return {"ar", world_size, {{1'000'000, 10}, {100'000'000, 10}}};
}

ProjectionModel worked_example() {
  ProjectionModel model;
  model.strong = true;
  model.global_batch = 512;
  model.per_rank_batch = 128;
  model.anchor_world_size = 4;
  model.compute_ms_per_sample = (201.68 - 1.68) / 128;
  model.gradient_bytes = kGradientBytes;
  model.bucket_bytes = kBucketBytes;
  model.curve = flat_curve(4);
  model.overlap_fraction = overlap_fraction(1.68, kGradientBytes, kBucketBytes, 4, model.curve);
  model.base_world_size = 1;
  model.base_throughput_samples_per_s = 640;
  return model;
}

FixtureRun strong_run(const std::string& id, int world_size, double step_ms, double exposed_ms) {
  FixtureRun run;
  run.run_id = id;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.global_batch = 512;
  run.per_gpu_batch = 512 / world_size;
  run.samples_per_s = 512 / (step_ms / 1000);
  run.step_ms = step_ms;
  run.comm_exposed_ms = exposed_ms;
  run.gradient_bytes = kGradientBytes;
  run.bucket_cap_mb = 25;
  run.varied = {{"world_size", std::to_string(world_size)}};
  return run;
}

}  // namespace

TEST_CASE("projection: bucketed ring all-reduce and the anchor's overlap") {
  // One full 25 MiB bucket and one of 18 585 600 B, both at 10 GB/s, 4 ranks:
  // 1.5 · 44.8e6 / 10e9 s = 6.72 ms.
  CHECK(bucketed_allreduce_ms(kGradientBytes, kBucketBytes, 4, flat_curve(4)) ==
        doctest::Approx(6.72));
  CHECK(bucketed_allreduce_ms(kGradientBytes, kBucketBytes, 1, flat_curve(4)) == 0);
  CHECK(overlap_fraction(1.68, kGradientBytes, kBucketBytes, 4, flat_curve(4)) ==
        doctest::Approx(0.75));
  // More exposed than the model's whole all-reduce: no overlap, not a negative one.
  CHECK(overlap_fraction(20, kGradientBytes, kBucketBytes, 4, flat_curve(4)) == 0);
  CHECK(overlap_fraction(0, kGradientBytes, kBucketBytes, 1, flat_curve(4)) == 0);
}

TEST_CASE("projection: the worked example of docs/projection.md") {
  const ProjectionModel model = worked_example();
  CHECK(model.compute_ms_per_sample == doctest::Approx(1.5625));
  const ProjectedPoint anchor = project(model, 4);
  CHECK(anchor.step_ms == doctest::Approx(201.68));
  const ProjectedPoint sixteen = project(model, 16);
  CHECK(sixteen.per_rank_batch == doctest::Approx(32));
  CHECK(sixteen.compute_ms == doctest::Approx(50));
  CHECK(sixteen.allreduce_ms == doctest::Approx(8.4));
  CHECK(sixteen.exposed_comm_ms == doctest::Approx(2.1));
  CHECK(sixteen.step_ms == doctest::Approx(52.1));
  CHECK(sixteen.throughput_samples_per_s == doctest::Approx(9827.255));
  CHECK(sixteen.efficiency == doctest::Approx(0.959693));
  const ProjectedPoint sixty_four = project(model, 64);
  CHECK(sixty_four.allreduce_ms == doctest::Approx(8.82));
  CHECK(sixty_four.step_ms == doctest::Approx(14.705));
  CHECK(sixty_four.efficiency == doctest::Approx(0.850051));
  const ProjectedPoint large = project(model, 512);
  CHECK(large.step_ms == doctest::Approx(3.798125));
  CHECK(large.efficiency == doctest::Approx(0.411387));
}

TEST_CASE("projection: worlds larger than a node use the all-reduce measured across nodes") {
  ProjectionModel model = worked_example();
  model.ranks_per_node = 4;
  model.inter_node_curve = BandwidthCurve{"ar-2-hosts", 8, {{1'000'000, 5}, {100'000'000, 5}}, 2};
  CHECK(&curve_for(model, 4) == &model.curve);
  CHECK(&curve_for(model, 16) == &*model.inter_node_curve);
  CHECK(project(model, 4).step_ms == doctest::Approx(201.68));  // the anchor, within a node
  const ProjectedPoint sixteen = project(model, 16);
  CHECK(sixteen.allreduce_ms == doctest::Approx(16.8));  // half the busbw: twice the time
  CHECK(sixteen.step_ms == doctest::Approx(50 + 0.25 * 16.8));
  model.ranks_per_node = 0;  // unknown: one curve for every world
  CHECK(project(model, 16).allreduce_ms == doctest::Approx(8.4));
}

TEST_CASE("projection: weak scaling keeps the per-rank batch") {
  ProjectionModel model = worked_example();
  model.strong = false;
  model.base_step_ms = 200;
  const ProjectedPoint sixteen = project(model, 16);
  CHECK(sixteen.compute_ms == doctest::Approx(200));
  CHECK(sixteen.step_ms == doctest::Approx(202.1));
  CHECK(sixteen.efficiency == doctest::Approx(200 / 202.1));
}

TEST_CASE("parse_world_sizes") {
  CHECK(*parse_world_sizes("16,32,64,512") == std::vector<int>{16, 32, 64, 512});
  CHECK_FALSE(parse_world_sizes("").has_value());
  CHECK_FALSE(parse_world_sizes("16,,32").has_value());
  CHECK_FALSE(parse_world_sizes("0").has_value());
  CHECK_FALSE(parse_world_sizes("x").has_value());
}

TEST_CASE("report --project: the worked example from measured runs, with the model's error") {
  StudyFixture study("projection", "strong");
  study.add_run(strong_run("p1", 1, 800, 0));  // 640 samples/s
  study.add_run(strong_run("p2", 2, 410, 1));
  study.add_run(strong_run("p4", 4, 201.68, 1.68));
  FixtureRun allreduce;
  allreduce.run_id = "ar";
  allreduce.workload = "allreduce";
  allreduce.world_size = 4;
  allreduce.tasks_per_node = 4;
  allreduce.collectives = {{1'000'000, 10}, {100'000'000, 10}};
  study.add_run(allreduce);
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  ReportOptions options;
  options.project_world_sizes = {16, 64, 512};
  auto report = build_report(*db, options);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  REQUIRE(report->projections.size() == 1);
  const SeriesProjection& projection = report->projections[0];
  CHECK(projection.model.anchor_world_size == 4);
  CHECK(projection.model.overlap_fraction == doctest::Approx(0.75));
  REQUIRE(projection.points.size() == 6);  // 1, 2, 4 measured; 16, 64, 512 projected
  const ProjectedPoint& two = projection.points[1];
  CHECK(two.step_ms == doctest::Approx(401.12));
  CHECK(*two.error_pct == doctest::Approx(-2.1659).epsilon(1e-4));
  CHECK(*projection.points[2].error_pct == doctest::Approx(0).epsilon(1e-9));
  CHECK(projection.points[3].efficiency == doctest::Approx(0.959693));
  CHECK_FALSE(projection.points[3].error_pct.has_value());
  CHECK(projection.points[5].efficiency == doctest::Approx(0.411387));
  const std::string table = render_report(*report, ReportFormat::kTable);
  CHECK(table.find("Projection (ring all-reduce model") != std::string::npos);
  CHECK(table.find("overlap 75.0%") != std::string::npos);
}

namespace {

FixtureRun allreduce_run(const std::string& id, std::vector<std::string> rank_hosts,
                         double busbw_gbps) {
  FixtureRun run;
  run.run_id = id;
  run.workload = "allreduce";
  run.world_size = static_cast<int>(rank_hosts.size());
  run.tasks_per_node = run.world_size;
  run.rank_hosts = std::move(rank_hosts);
  run.collectives = {{1'000'000, busbw_gbps}, {100'000'000, busbw_gbps}};
  return run;
}

}  // namespace

TEST_CASE("report --project: an all-reduce on several hosts grounds the worlds beyond a node") {
  for (bool across_hosts : {false, true}) {
    CAPTURE(across_hosts);
    StudyFixture study(across_hosts ? "projection_hosts" : "projection_one_host", "strong");
    study.add_run(strong_run("p1", 1, 800, 0));
    study.add_run(strong_run("p4", 4, 201.68, 1.68));
    study.add_run(allreduce_run("ar", {"a", "a", "a", "a"}, 10));
    if (across_hosts) study.add_run(allreduce_run("ar2", {"a", "a", "b", "b"}, 5));
    REQUIRE(ingest_study(study.db_path()).is_ok());
    auto db = sqlite::Database::open(study.db_path());
    REQUIRE(db.is_ok());
    ReportOptions options;
    options.project_world_sizes = {16};
    auto report = build_report(*db, options);
    REQUIRE_MESSAGE(report.is_ok(), report.status().message());
    REQUIRE(report->projections.size() == 1);
    const SeriesProjection& projection = report->projections[0];
    CHECK(projection.model.ranks_per_node == 4);
    CHECK(projection.model.overlap_fraction == doctest::Approx(0.75));  // anchor: one node
    const ProjectedPoint& sixteen = projection.points.back();
    REQUIRE(sixteen.world_size == 16);
    CHECK(sixteen.allreduce_ms == doctest::Approx(across_hosts ? 16.8 : 8.4));
    CHECK(has_warning(*report, "inter-node links are assumed as fast") == !across_hosts);
    CHECK((projection.curve_source.find("across nodes ar2") != std::string::npos) == across_hosts);
  }
}

TEST_CASE("report --project without an all-reduce curve says what is missing") {
  StudyFixture study("projection_no_curve", "strong");
  study.add_run(strong_run("p1", 1, 800, 0));
  study.add_run(strong_run("p2", 2, 410, 1));
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  ReportOptions options;
  options.project_world_sizes = {16};
  auto report = build_report(*db, options);
  REQUIRE(report.is_ok());
  CHECK(report->projections.empty());
  bool warned = false;
  for (const auto& warning : report->warnings) {
    warned |= warning.find("no all-reduce bandwidth curve") != std::string::npos;
  }
  CHECK(warned);
}
