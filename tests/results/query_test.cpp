#include "orchestrator/results/query/query.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include "orchestrator/results/ingest/ingest.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

void add_ingested_run(StudyFixture& study) {
  FixtureRun run;
  run.run_id = "q000000000000001";
  run.world_size = 2;
  run.tasks_per_node = 2;
  study.add_run(run);
  REQUIRE(ingest_study(study.db_path()).is_ok());
}

}  // namespace

TEST_CASE("query answers SELECTs and every named query runs") {
  StudyFixture study("query_select", "strong");
  add_ingested_run(study);
  auto result = run_read_only_query(study.db_path(), "SELECT run_id, world_size FROM runs");
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  CHECK(result->columns == std::vector<std::string>{"run_id", "world_size"});
  REQUIRE(result->rows.size() == 1);
  CHECK(std::get<int64_t>(result->rows[0][1]) == 2);
  for (const auto& named : named_queries()) {
    auto answer = run_read_only_query(study.db_path(), named.name);
    CHECK_MESSAGE(answer.is_ok(), named.name << ": " << answer.status().message());
  }
  auto throughput = run_read_only_query(study.db_path(), "throughput");
  REQUIRE(throughput.is_ok());
  CHECK(std::get<double>(throughput->rows.at(0).at(4)) == 1000);
  CHECK(query_json(*throughput).find("\"samples_per_s\": 1000") != std::string::npos);
  CHECK(run_read_only_query(study.db_path(), "PRAGMA table_info(runs)").is_ok());
}

TEST_CASE("query refuses every kind of write and leaves the database unchanged") {
  StudyFixture study("query_refuse", "strong");
  add_ingested_run(study);
  const std::string before = dump_database(study.db_path());
  const std::string attached = study.dir() + "/other.sqlite";
  for (const std::string& sql : std::vector<std::string>{
           "INSERT INTO runs (run_id) VALUES ('x')", "UPDATE runs SET state = 'FAILED'",
           "DELETE FROM m_summary", "DROP TABLE runs", "CREATE TABLE evil (x)",
           "ALTER TABLE runs ADD COLUMN y", "ATTACH DATABASE '" + attached + "' AS other",
           "PRAGMA writable_schema = 1", "PRAGMA query_only = 0", "PRAGMA journal_mode = DELETE",
           "VACUUM", "REINDEX", "BEGIN IMMEDIATE", "SELECT 1; DELETE FROM runs",
           "WITH x AS (SELECT 1) DELETE FROM runs"}) {
    auto result = run_read_only_query(study.db_path(), sql);
    CHECK_MESSAGE(!result.is_ok(), sql);
    if (!result.is_ok()) {
      const std::string message = result.status().message();
      CHECK_MESSAGE((message.find("read-only") != std::string::npos ||
                     message.find("one statement") != std::string::npos),
                    sql << " -> " << message);
    }
  }
  CHECK(dump_database(study.db_path()) == before);
  CHECK_FALSE(std::filesystem::exists(attached));
}

TEST_CASE("query explains a missing database and missing measurements") {
  StudyFixture study("query_errors", "strong");
  auto missing = run_read_only_query(study.dir() + "/nope.sqlite", "runs");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message().find("no such study database") != std::string::npos);
  auto not_ingested = run_read_only_query(study.db_path(), "phases");
  REQUIRE_FALSE(not_ingested.is_ok());
  CHECK(not_ingested.status().message().find("scalestudy ingest") != std::string::npos);
}
