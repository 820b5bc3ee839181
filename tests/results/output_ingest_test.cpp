// Ingest of runs measured by their output (a study's `metrics:`): runs without a run
// database, transactional and idempotent like rank databases, a pattern that matches
// nothing as the run's failure reason, and the report fields the metric roles fill.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "harness/core/run_layout.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/run_measurements.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

const char* kMetricsJson = R"([
  {"name": "throughput", "pattern": "Throughput ([0-9.]+) img/s", "unit": "img/s",
   "occurrence": "all", "skip_first": 1, "reduce": "sum", "role": "throughput"},
  {"name": "epoch_time", "pattern": "epoch time ([0-9.]+) s", "unit": "s",
   "occurrence": "last", "skip_first": 0, "reduce": "max", "role": "epoch_time"},
  {"name": "val_acc", "pattern": "Val Acc ([0-9.]+)%", "unit": "%",
   "occurrence": "last", "skip_first": 0, "reduce": "rank0", "role": "val_accuracy"}])";

// A run of `world_size` ranks that printed `throughput` img/s per rank after a warm-up line.
FixtureRun printing_run(StudyFixture& study, const std::string& id, int world_size,
                        double throughput) {
  FixtureRun run;
  run.run_id = id;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.write_rank_files = false;
  run.metrics_json = kMetricsJson;
  study.add_run(run);
  std::filesystem::create_directories(study.out_dir(id));
  for (int rank = 0; rank < world_size; ++rank) {
    std::ofstream(run_layout::rank_log_path(study.out_dir(id), rank))
        << "Throughput 1 img/s\nThroughput " << throughput << " img/s\nepoch time " << 10 + rank
        << " s\nVal Acc 81.5%\n";
  }
  return run;
}

std::string scalar(const std::string& db_path, const std::string& sql) {
  auto db = sqlite::Database::open(db_path);
  REQUIRE(db.is_ok());
  auto value = db->query_value(sql);
  REQUIRE_MESSAGE(value.is_ok(), value.status().message());
  return *value ? sqlite::to_string(**value) : "<none>";
}

IngestOutcome ingest_ok(const StudyFixture& study, IngestOptions options = {}) {
  auto outcome = ingest_study(study.db_path(), options);
  REQUIRE_MESSAGE(outcome.is_ok(), outcome.status().message());
  return *outcome;
}

}  // namespace

TEST_CASE("runs without a run database are measured by their output's patterns") {
  StudyFixture study("printing", "strong");
  printing_run(study, "bbbb000000000001", 1, 100);
  printing_run(study, "bbbb000000000002", 2, 90);
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.ingested == 2);
  CHECK(outcome.failed == 0);
  CHECK(scalar(study.db_path(),
               "SELECT CAST(value AS INTEGER) FROM m_output_metrics WHERE run_id = "
               "'bbbb000000000002' AND "
               "name = 'throughput'") == "180");
  CHECK(scalar(study.db_path(),
               "SELECT count(*) FROM m_output_metric_ranks WHERE run_id = 'bbbb000000000002'") ==
        "5");  // two ranks each for throughput and epoch_time, rank 0 for val_acc
  CHECK(
      scalar(study.db_path(), "SELECT role FROM m_output_metrics WHERE name = 'val_acc' LIMIT 1") ==
      "val_accuracy");

  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db);
  auto runs = load_run_measurements(*db);
  REQUIRE(runs);
  REQUIRE(runs->size() == 2);
  const RunMeasurement& two_ranks = (*runs)[1];
  CHECK(two_ranks.measured);
  CHECK(two_ranks.samples_per_s == doctest::Approx(180));
  CHECK(two_ranks.epoch_s == doctest::Approx(11));
  REQUIRE(two_ranks.final_val_acc);
  CHECK(*two_ranks.final_val_acc == doctest::Approx(0.815));
  CHECK(two_ranks.output_metrics.at("throughput").value == doctest::Approx(180));
  CHECK(two_ranks.output_metrics.at("throughput").unit == "img/s");
}

TEST_CASE("the report's runs load inside a caller's own transaction too") {
  StudyFixture study("printing_nested", "strong");
  printing_run(study, "bbbb000000000009", 1, 100);
  ingest_ok(study);
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db);
  Status status = sqlite::in_transaction(*db, [&]() -> Status {
    auto runs = load_run_measurements(*db);
    REQUIRE_MESSAGE(runs, runs.status().message());
    REQUIRE(runs->size() == 1);
    CHECK((*runs)[0].samples_per_s == doctest::Approx(100));
    return Status::ok();
  });
  CHECK_MESSAGE(status, status.message());
}

TEST_CASE("output ingest is idempotent; a changed output is re-read") {
  StudyFixture study("printing_again", "strong");
  printing_run(study, "bbbb000000000003", 2, 50);
  CHECK(ingest_ok(study).ingested == 1);
  IngestOutcome again = ingest_ok(study);
  CHECK(again.ingested == 0);
  CHECK(again.unchanged == 1);

  std::ofstream(run_layout::rank_log_path(study.out_dir("bbbb000000000003"), 1), std::ios::app)
      << "Throughput 70 img/s\nThroughput 70 img/s\n";
  CHECK(ingest_ok(study).ingested == 1);
  // Rank 1 now has 70 and 70 after its warm-up: its median is 70.
  CHECK(scalar(study.db_path(),
               "SELECT CAST(value AS INTEGER) FROM m_output_metrics WHERE name = 'throughput'") ==
        "120");
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_output_metrics") == "3");
}

TEST_CASE("a pattern that matches nothing marks the run FAILED with the reason") {
  StudyFixture study("printing_nothing", "strong");
  printing_run(study, "bbbb000000000004", 2, 50);
  std::ofstream(run_layout::rank_log_path(study.out_dir("bbbb000000000004"), 1), std::ios::trunc)
      << "RuntimeError: connection refused\n";
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.failed == 1);
  REQUIRE(outcome.failures.size() == 1);
  CHECK(outcome.failures[0].find("metric 'throughput'") != std::string::npos);
  CHECK(outcome.failures[0].find("matched nothing in") != std::string::npos);
  CHECK(outcome.failures[0].find("rank1.log") != std::string::npos);
  CHECK(scalar(study.db_path(), "SELECT state FROM runs") == "FAILED");
  CHECK(scalar(study.db_path(), "SELECT reason FROM runs").find("matched nothing") !=
        std::string::npos);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_output_metrics") == "0");
}

TEST_CASE("an error during ingest rolls the output metrics back with everything else") {
  StudyFixture study("printing_rollback", "strong");
  printing_run(study, "bbbb000000000005", 1, 50);
  printing_run(study, "bbbb000000000006", 1, 60);
  IngestOptions options;
  int seen = 0;
  options.after_run = [&](const std::string&) {
    return ++seen == 2 ? Status::error("injected") : Status::ok();
  };
  CHECK_FALSE(ingest_study(study.db_path(), options));
  // Even the measurement tables the first ingest creates are gone with the rest.
  CHECK(scalar(study.db_path(),
               "SELECT count(*) FROM sqlite_master WHERE name IN "
               "('m_ingest', 'm_output_metrics', 'm_output_metric_ranks')") == "0");
  CHECK(ingest_ok(study).ingested == 2);
}

TEST_CASE("a run that did not complete is not taken from its output") {
  StudyFixture study("printing_failed", "strong");
  FixtureRun run;
  run.run_id = "bbbb000000000007";
  run.state = "FAILED";
  run.write_rank_files = false;
  run.metrics_json = kMetricsJson;
  study.add_run(run);
  std::filesystem::create_directories(study.out_dir(run.run_id));
  std::ofstream(run_layout::rank_log_path(study.out_dir(run.run_id), 0))
      << "Throughput 1 img/s\nThroughput 2 img/s\nepoch time 1 s\nVal Acc 1%\n";
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.ingested == 0);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_output_metrics") == "0");
}
