#include "orchestrator/results/ingest/ingest.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/core/run_schema.hpp"
#include "orchestrator/results/ingest/measurement_schema.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

FixtureRun run_at(const std::string& id, int world_size) {
  FixtureRun run;
  run.run_id = id;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  return run;
}

// Three completed runs of 1, 2 and 2 ranks.
void add_three_runs(StudyFixture& study) {
  study.add_run(run_at("aaaa000000000001", 1));
  study.add_run(run_at("aaaa000000000002", 2));
  study.add_run(run_at("aaaa000000000003", 2));
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

TEST_CASE("every m_<table> is (run_id, rank) followed by the run schema's columns") {
  auto db = sqlite::Database::open(":memory:");
  REQUIRE(db.is_ok());
  REQUIRE(ensure_measurement_schema(*db).is_ok());
  for (const run_schema::Table& table : run_schema::kTables) {
    INFO(table.name);
    auto rows = db->query("SELECT name FROM pragma_table_info(?) ORDER BY cid",
                          {std::string("m_") + table.name});
    REQUIRE(rows.is_ok());
    std::string columns;
    for (const auto& row : *rows)
      columns += (columns.empty() ? "" : ", ") + sqlite::to_string(row[0]);
    CHECK(columns == std::string("run_id, rank, ") + table.columns);
  }
}

TEST_CASE("ingest copies every rank's rows keyed by (run_id, rank) and aggregates phases") {
  StudyFixture study("ingest_copy", "strong");
  add_three_runs(study);
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.ingested == 3);
  CHECK(outcome.failed == 0);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_run") == "5");
  CHECK(scalar(study.db_path(),
               "SELECT count(*) FROM m_epochs WHERE run_id = 'aaaa000000000002'") == "4");
  CHECK(scalar(study.db_path(),
               "SELECT value FROM m_provenance WHERE run_id = 'aaaa000000000003' AND rank = 1 "
               "AND key = 'git_commit'") == "0123abcd");
  // Warm-up steps are 10× slower in the fixture: the aggregates must exclude them.
  CHECK(scalar(study.db_path(),
               "SELECT median_ms FROM m_phases WHERE run_id = 'aaaa000000000001' AND phase = "
               "'step'") == "10");
  CHECK(scalar(study.db_path(),
               "SELECT steps FROM m_phases WHERE run_id = 'aaaa000000000001' AND phase = 'data'") ==
        "8");
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_steps") == "0");
}

TEST_CASE("store_steps also copies the step rows") {
  StudyFixture study("ingest_steps", "strong");
  study.add_run(run_at("bbbb000000000001", 2));
  IngestOptions options;
  options.store_steps = true;
  ingest_ok(study, options);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_steps") == "20");
}

TEST_CASE("store_steps after a plain ingest adds the step rows; a plain one after keeps them") {
  StudyFixture study("ingest_steps_later", "strong");
  study.add_run(run_at("bbbb000000000002", 2));
  ingest_ok(study);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_steps") == "0");
  IngestOptions options;
  options.store_steps = true;
  IngestOutcome with_steps = ingest_ok(study, options);
  CHECK(with_steps.ingested == 1);
  CHECK(with_steps.unchanged == 0);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_steps") == "20");
  CHECK(ingest_ok(study, options).unchanged == 1);
  IngestOutcome plain = ingest_ok(study);
  CHECK(plain.unchanged == 1);
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_steps") == "20");
}

TEST_CASE("ingesting twice changes nothing; a rewritten rank file is re-ingested") {
  StudyFixture study("ingest_idempotent", "strong");
  add_three_runs(study);
  ingest_ok(study);
  const std::string first = dump_database(study.db_path());
  IngestOutcome again = ingest_ok(study);
  CHECK(again.ingested == 0);
  CHECK(again.unchanged == 3);
  CHECK(dump_database(study.db_path()) == first);

  FixtureRun changed = run_at("aaaa000000000002", 2);
  changed.samples_per_s = 4321;
  write_rank_database(study.rank_path(changed.run_id, 0), changed, 0);
  IngestOutcome third = ingest_ok(study);
  CHECK(third.ingested == 1);
  CHECK(third.unchanged == 2);
  CHECK(scalar(study.db_path(),
               "SELECT value FROM m_summary WHERE run_id = 'aaaa000000000002' AND rank = 0 AND "
               "name = 'samples_per_s'") == "4321");
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_run WHERE run_id = 'aaaa000000000002'") ==
        "2");
}

TEST_CASE("an error after some runs rolls the whole ingest back") {
  StudyFixture study("ingest_rollback", "strong");
  add_three_runs(study);
  const std::string before = dump_database(study.db_path());
  IngestOptions options;
  int written = 0;
  options.after_run = [&](const std::string&) {
    return ++written == 2 ? Status::error("injected failure") : Status::ok();
  };
  auto outcome = ingest_study(study.db_path(), options);
  REQUIRE_FALSE(outcome.is_ok());
  CHECK(outcome.status().message().find("injected failure") != std::string::npos);
  CHECK(outcome.status().message().find("rolled back") != std::string::npos);
  CHECK(dump_database(study.db_path()) == before);
  CHECK(ingest_ok(study).ingested == 3);
}

TEST_CASE("a process killed mid-ingest leaves the study database as it was") {
  StudyFixture study("ingest_crash", "strong");
  add_three_runs(study);
  const std::string before = dump_database(study.db_path());
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    IngestOptions options;
    int written = 0;
    options.after_run = [&](const std::string&) {
      if (++written == 2) _exit(42);  // dies with an open write transaction
      return Status::ok();
    };
    auto ignored = ingest_study(study.db_path(), options);
    _exit(ignored.is_ok() ? 0 : 1);
  }
  int wait_status = 0;
  REQUIRE(waitpid(child, &wait_status, 0) == child);
  REQUIRE(WIFEXITED(wait_status));
  CHECK(WEXITSTATUS(wait_status) == 42);
  CHECK(dump_database(study.db_path()) == before);
  CHECK(ingest_ok(study).ingested == 3);
}

TEST_CASE("a corrupt header marks that run FAILED and the rest is ingested") {
  StudyFixture study("ingest_corrupt", "strong");
  add_three_runs(study);
  {
    std::fstream file(study.rank_path("aaaa000000000002", 1),
                      std::ios::in | std::ios::out | std::ios::binary);
    file.write("this is no SQLite header", 24);
  }
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.ingested == 2);
  CHECK(outcome.failed == 1);
  const std::string reason =
      scalar(study.db_path(), "SELECT reason FROM runs WHERE run_id = 'aaaa000000000002'");
  CHECK(reason.rfind("corrupt run database rank1.sqlite: ", 0) == 0);
  CHECK(scalar(study.db_path(), "SELECT state FROM runs WHERE run_id = 'aaaa000000000002'") ==
        "FAILED");
  CHECK(scalar(study.db_path(), "SELECT count(*) FROM m_run WHERE run_id = 'aaaa000000000002'") ==
        "0");
  CHECK(scalar(study.db_path(), "SELECT status FROM m_ingest WHERE run_id = 'aaaa000000000002'") ==
        "failed");
  // Idempotent for failures too.
  const std::string after = dump_database(study.db_path());
  ingest_ok(study);
  CHECK(dump_database(study.db_path()) == after);
}

TEST_CASE("a truncated run database marks that run FAILED") {
  StudyFixture study("ingest_truncated", "strong");
  add_three_runs(study);
  const std::string path = study.rank_path("aaaa000000000003", 0);
  const auto size = std::filesystem::file_size(path);
  REQUIRE(size > 8192);
  std::filesystem::resize_file(path, size / 2);
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.ingested == 2);
  REQUIRE(outcome.failures.size() == 1);
  CHECK(outcome.failures[0].find("aaaa000000000003: corrupt run database rank0.sqlite") == 0);
  CHECK(scalar(study.db_path(), "SELECT state FROM runs WHERE run_id = 'aaaa000000000003'") ==
        "FAILED");
}

TEST_CASE("missing rank files: the reason names the ranks") {
  StudyFixture study("ingest_missing", "strong");
  FixtureRun run = run_at("cccc000000000004", 4);
  study.add_run(run);
  std::filesystem::remove(study.rank_path(run.run_id, 1));
  std::filesystem::remove(study.rank_path(run.run_id, 3));
  ingest_ok(study);
  const std::string reason =
      scalar(study.db_path(), "SELECT reason FROM runs WHERE run_id = 'cccc000000000004'");
  CHECK(reason.find("rank1.sqlite, rank3.sqlite (ranks 1, 3 of 4)") != std::string::npos);
}

TEST_CASE("a purged run directory after ingest keeps the measurements and the run's state") {
  StudyFixture study("ingest_purged", "strong");
  add_three_runs(study);
  ingest_ok(study);
  const std::string measured = "SELECT count(*) FROM m_run WHERE run_id = 'aaaa000000000002'";
  REQUIRE(scalar(study.db_path(), measured) == "2");
  std::filesystem::remove_all(study.out_dir("aaaa000000000002"));

  IngestOutcome purged = ingest_ok(study);
  CHECK(purged.failed == 0);
  CHECK(purged.failures.empty());
  REQUIRE(purged.kept.size() == 1);
  CHECK(purged.kept[0] == "aaaa000000000002: run directory gone, measurements kept");
  CHECK(scalar(study.db_path(), measured) == "2");
  CHECK(scalar(study.db_path(), "SELECT state FROM runs WHERE run_id = 'aaaa000000000002'") ==
        "COMPLETED");
  CHECK(scalar(study.db_path(), "SELECT reason FROM m_ingest WHERE run_id = 'aaaa000000000002'") ==
        "run directory gone, measurements kept");

  // Nothing changed since: the next ingest skips it and still keeps everything.
  IngestOutcome again = ingest_ok(study);
  CHECK(again.unchanged == 3);
  CHECK(scalar(study.db_path(), measured) == "2");
}

TEST_CASE("run directories stored relative to the results dir: a copied folder ingests") {
  StudyFixture study("ingest_relative", "strong");
  add_three_runs(study);
  {
    auto db = sqlite::Database::open(study.db_path());
    REQUIRE(db.is_ok());
    REQUIRE(db->exec("UPDATE runs SET out_dir = 'runs/' || run_id").is_ok());
  }
  const std::filesystem::path copy = study.dir() + "-copy";
  std::filesystem::remove_all(copy);
  std::filesystem::copy(study.dir(), copy, std::filesystem::copy_options::recursive);
  std::filesystem::remove_all(study.dir() + "/runs");  // only the copy has the run folders
  const std::string copied_db = (copy / std::filesystem::path(study.db_path()).filename()).string();
  auto outcome = ingest_study(copied_db);
  REQUIRE_MESSAGE(outcome.is_ok(), outcome.status().message());
  CHECK(outcome->ingested == 3);
  CHECK(outcome->failures.empty());
  CHECK(scalar(copied_db, "SELECT count(*) FROM m_run") == "5");
  std::filesystem::remove_all(copy);
}

TEST_CASE("a rank whose record still says running after its job ended marks the run FAILED") {
  StudyFixture study("ingest_killed", "strong");
  FixtureRun run = run_at("abab000000000001", 2);
  study.add_run(run);  // the job ended COMPLETED, but rank 1 never wrote its final status
  {
    auto db = sqlite::Database::open(study.rank_path(run.run_id, 1));
    REQUIRE(db.is_ok());
    REQUIRE(db->exec("UPDATE run SET status = 'running', finished_at = NULL").is_ok());
  }
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.failed == 1);
  CHECK(scalar(study.db_path(), "SELECT reason FROM runs WHERE run_id = 'abab000000000001'") ==
        "rank 1 never finished (its record still says running: killed or crashed)");
}

TEST_CASE("a rank file of another schema version or another run is refused") {
  StudyFixture study("ingest_foreign", "strong");
  study.add_run(run_at("dddd000000000001", 1));
  study.add_run(run_at("dddd000000000002", 1));
  {
    auto db = sqlite::Database::open(study.rank_path("dddd000000000001", 0));
    REQUIRE(db.is_ok());
    REQUIRE(db->exec("PRAGMA user_version = 2").is_ok());
  }
  write_rank_database(study.rank_path("dddd000000000002", 0), run_at("eeee000000000000", 1), 0);
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.failed == 2);
  CHECK(scalar(study.db_path(), "SELECT reason FROM runs WHERE run_id = 'dddd000000000001'")
            .find("schema version 2 is not supported") != std::string::npos);
  CHECK(scalar(study.db_path(), "SELECT reason FROM runs WHERE run_id = 'dddd000000000002'")
            .find("belongs to run eeee000000000000") != std::string::npos);
}

TEST_CASE(
    "runs still active are left alone; finished non-COMPLETED runs count when files prove it") {
  StudyFixture study("ingest_states", "strong");
  FixtureRun running = run_at("ffff000000000001", 1);
  running.state = "RUNNING";
  study.add_run(running);
  FixtureRun timed_out = run_at("ffff000000000002", 1);
  timed_out.state = "TIMEOUT";
  study.add_run(timed_out);
  FixtureRun lost = run_at("ffff000000000003", 2);
  lost.state = "NODE_FAIL";
  study.add_run(lost);
  std::filesystem::remove(study.rank_path(lost.run_id, 1));
  IngestOutcome outcome = ingest_ok(study);
  CHECK(outcome.ingested == 1);  // the TIMEOUT run whose ranks all completed
  CHECK(outcome.failed == 0);
  CHECK(scalar(study.db_path(),
               "SELECT count(*) FROM m_ingest WHERE run_id = 'ffff000000000001'") == "0");
  CHECK(scalar(study.db_path(), "SELECT state FROM runs WHERE run_id = 'ffff000000000003'") ==
        "NODE_FAIL");
}

TEST_CASE("ingest refuses a file that is not a study database") {
  StudyFixture study("ingest_not_study", "strong");
  study.add_run(run_at("abab000000000001", 1));
  auto outcome = ingest_study(study.rank_path("abab000000000001", 0));
  REQUIRE_FALSE(outcome.is_ok());
  CHECK(outcome.status().message().find("not a study database") != std::string::npos);
}
