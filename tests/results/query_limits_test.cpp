// `scalestudy query` under hostile or unusual conditions: a runaway recursive query stops
// at its time limit, rows stream to the printers as they come, table-valued pragmas work,
// a 0-byte database is refused, and a read-only results folder can still be queried.
#include <doctest/doctest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/query/query.hpp"
#include "orchestrator/results/query/query_printer.hpp"
#include "orchestrator/results/query/read_only_open.hpp"
#include "orchestrator/results/report/text_table.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

namespace fs = std::filesystem;

void add_run(StudyFixture& study, const std::string& run_id) {
  FixtureRun run;
  run.run_id = run_id;
  run.world_size = 2;
  run.tasks_per_node = 2;
  study.add_run(run);
}

// Everything a printer wrote to a temporary FILE*.
template <typename Print>
std::string printed(Print print) {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  print(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, file)) text.append(buffer, n);
  std::fclose(file);
  return text;
}

// A sink that counts rows and keeps none: what streaming costs in memory.
class CountingSink : public QueryRowSink {
 public:
  void begin(const std::vector<std::string>&) override {}
  Status row(const std::vector<sqlite::Value>&) override {
    ++rows;
    return Status::ok();
  }
  size_t rows = 0;
};

}  // namespace

TEST_CASE("a recursive query that never ends stops at the time limit") {
  StudyFixture study("query_runaway", "strong");
  add_run(study, "q000000000000001");
  QueryLimits limits;
  limits.time_limit_s = 1;
  CountingSink sink;
  Status status = stream_read_only_query(
      study.db_path(),
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n", limits,
      sink);
  REQUIRE_FALSE(status.is_ok());
  CHECK(status.message().find("time limit of 1 s") != std::string::npos);
  // Rows streamed out as they came: none was held back until the end.
  CHECK(sink.rows > 0);
}

TEST_CASE("the csv and json printers stream what query_table and query_json render") {
  StudyFixture study("query_stream", "strong");
  add_run(study, "q000000000000001");
  add_run(study, "q000000000000002");
  const std::string sql = "SELECT run_id, world_size, 1.5 AS half, NULL AS missing FROM runs";
  auto collected = run_read_only_query(study.db_path(), sql);
  REQUIRE_MESSAGE(collected.is_ok(), collected.status().message());
  REQUIRE(collected->rows.size() == 2);

  std::string csv = printed([&](std::FILE* out) {
    CsvQueryPrinter printer(out);
    REQUIRE(stream_read_only_query(study.db_path(), sql, {}, printer).is_ok());
  });
  CHECK(csv == render_table(query_table(*collected), TableFormat::kCsv));

  std::string json = printed([&](std::FILE* out) {
    JsonQueryPrinter printer(out);
    REQUIRE(stream_read_only_query(study.db_path(), sql, {}, printer).is_ok());
    printer.finish();
  });
  CHECK(json == query_json(*collected));

  std::string empty = printed([&](std::FILE* out) {
    JsonQueryPrinter printer(out);
    REQUIRE(
        stream_read_only_query(study.db_path(), "SELECT * FROM runs WHERE 0", {}, printer).is_ok());
    printer.finish();
  });
  CHECK(empty == query_json(QueryResult{}));
}

TEST_CASE("the text table holds a bounded number of rows") {
  StudyFixture study("query_table_cap", "strong");
  add_run(study, "q000000000000001");
  TableQueryCollector collector(10);
  Status status = stream_read_only_query(
      study.db_path(),
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) "
      "SELECT i FROM n",
      {}, collector);
  REQUIRE_FALSE(status.is_ok());
  CHECK(status.message().find("--format csv or json") != std::string::npos);
  CHECK(collector.result().rows.size() == 10);
}

TEST_CASE("table-valued pragmas are read-only queries") {
  StudyFixture study("query_pragma_table", "strong");
  add_run(study, "q000000000000001");
  auto columns = run_read_only_query(study.db_path(), "SELECT * FROM pragma_table_info('runs')");
  REQUIRE_MESSAGE(columns.is_ok(), columns.status().message());
  CHECK(columns->rows.size() > 5);
  CHECK_FALSE(run_read_only_query(study.db_path(), "UPDATE sqlite_master SET sql = ''").is_ok());
}

TEST_CASE("a 0-byte study database is refused, not initialised") {
  StudyFixture study("query_empty_db", "strong");
  const std::string empty_path = study.dir() + "/empty.sqlite";
  std::ofstream(empty_path).close();
  auto located = campaign::locate_study_database(empty_path, study.dir());
  REQUIRE_FALSE(located.is_ok());
  CHECK(located.status().message().find("empty (0 bytes)") != std::string::npos);
  CHECK(fs::file_size(empty_path) == 0);
}

TEST_CASE("a study database in a read-only folder can be queried") {
  StudyFixture study("query_read_only", "strong");
  add_run(study, "q000000000000001");
  REQUIRE(ingest_study(study.db_path()).is_ok());
  fs::path folder = fs::path(study.dir()) / "readonly";
  fs::create_directories(folder);
  // Root writes through permission bits, so as root the folder is a read-only mount.
  const bool as_root = geteuid() == 0;
  if (as_root) {
    REQUIRE(mount("tmpfs", folder.c_str(), "tmpfs", 0, "size=16m") == 0);
  }
  fs::copy_file(study.db_path(), folder / "study.sqlite");
  if (as_root) {
    REQUIRE(mount(nullptr, folder.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0);
  } else {
    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const std::string db = (folder / "study.sqlite").string();
  auto note = read_only_note(db);
  REQUIRE(note.has_value());
  CHECK(note->find("read-only") != std::string::npos);
  auto runs = run_read_only_query(db, "SELECT run_id FROM runs");
  CHECK_MESSAGE(runs.is_ok(), runs.status().message());
  if (runs.is_ok()) CHECK(runs->rows.size() == 1);
  CHECK_FALSE(fs::exists(db + "-shm"));
  if (as_root) {
    CHECK(umount(folder.c_str()) == 0);
  } else {
    fs::permissions(folder, fs::perms::owner_all);
  }
  CHECK_FALSE(read_only_note(study.db_path()).has_value());
}
