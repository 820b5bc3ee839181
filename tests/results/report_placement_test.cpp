#include "orchestrator/results/report/report_placement.hpp"

#include <doctest/doctest.h>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

FixtureRun placed_run(const std::string& id, int world_size, int repeat) {
  FixtureRun run;
  run.run_id = id;
  run.repeat = repeat;
  run.world_size = world_size;
  run.nodes = world_size;
  run.tasks_per_node = 1;
  run.global_batch = 128;
  run.per_gpu_batch = 128 / world_size;
  run.samples_per_s = 100.0 * world_size;
  run.epoch_s = {600.0 / world_size, 600.0 / world_size};
  run.varied = {{"world_size", std::to_string(world_size)}};
  return run;
}

void place(const StudyFixture& study, const std::string& run_id, const std::string& nodes,
           const std::string& started, const std::string& ended) {
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  auto stored = db->query(
      "INSERT INTO placements(run_id, attempt, job_id, job_step, node_list, queued_at, "
      "started_at, ended_at) VALUES (?, 1, ?, NULL, ?, '2026-01-01T10:00:00', ?, ?)",
      {run_id, "7+" + run_id, nodes, started, ended});
  REQUIRE_MESSAGE(stored.is_ok(), stored.status().message());
}

}  // namespace

TEST_CASE("time to result: queue wait is the time no run of the study was running") {
  CHECK_FALSE(time_to_result({}));
  // Queued at 0; runs at [10, 20] and [15, 30] (overlapping), then [40, 50].
  auto split = time_to_result({{0, 10, 20}, {0, 15, 30}, {5, 40, 50}});
  REQUIRE(split);
  CHECK(split->wall_s == doctest::Approx(50));
  CHECK(split->run_s == doctest::Approx(30));
  CHECK(split->queue_wait_s == doctest::Approx(20));
}

TEST_CASE("the report splits time to result and warns of a point pinned to one node set") {
  // The 4-node point, the largest, is pinned too, but had no other nodes to go to.
  StudyFixture study("placements", "strong");
  study.add_run(placed_run("p1r0000000000000", 1, 0));
  study.add_run(placed_run("p1r1000000000000", 1, 1));
  study.add_run(placed_run("p2r0000000000000", 2, 0));
  study.add_run(placed_run("p2r1000000000000", 2, 1));
  study.add_run(placed_run("p4r0000000000000", 4, 0));
  study.add_run(placed_run("p4r1000000000000", 4, 1));
  // Both 1-node repeats on node1; the 2-node repeats on different pairs.
  place(study, "p1r0000000000000", "node1", "2026-01-01T10:01:00", "2026-01-01T10:02:00");
  place(study, "p1r1000000000000", "node1", "2026-01-01T10:02:00", "2026-01-01T10:03:00");
  place(study, "p2r0000000000000", "node[1-2]", "2026-01-01T10:03:00", "2026-01-01T10:04:00");
  place(study, "p2r1000000000000", "node[3-4]", "2026-01-01T10:05:00", "2026-01-01T10:06:00");
  place(study, "p4r0000000000000", "node[1-4]", "2026-01-01T10:06:00", "2026-01-01T10:06:30");
  place(study, "p4r1000000000000", "node[1-4]", "2026-01-01T10:06:30", "2026-01-01T10:07:00");
  Report report = report_of(study);
  REQUIRE(report.time_to_result);
  CHECK(report.time_to_result->wall_s == doctest::Approx(420));
  CHECK(report.time_to_result->run_s == doctest::Approx(300));
  CHECK(report.time_to_result->queue_wait_s == doctest::Approx(120));
  int pinned = 0;
  for (const auto& warning : report.warnings) {
    if (warning.find("repeats ran on") == std::string::npos) continue;
    ++pinned;
    CHECK(warning.find("N=1") == 0);
    CHECK(warning.find("node1") != std::string::npos);
  }
  CHECK(pinned == 1);
}

TEST_CASE("runs without a placement (the local executor) give no time to result") {
  StudyFixture study("unplaced", "strong");
  study.add_run(placed_run("u1r0000000000000", 1, 0));
  study.add_run(placed_run("u1r1000000000000", 1, 1));
  Report report = report_of(study);
  CHECK_FALSE(report.time_to_result);
}
