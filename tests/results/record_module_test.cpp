// python/scalestudy_record.py: its run database has exactly the documented schema (the
// SQL block of docs/run-database.md, which the C++ writer's kRunSchemaSql also follows),
// and what it records reads back through the ingest's reader with phases and summary.
// Runs the module with the `python3` on PATH: it needs the standard library only.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "harness/core/run_schema.hpp"
#include "harness/core/sqlite.hpp"
#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/results/ingest/rank_database.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

std::string source_dir() {
  const char* dir = std::getenv("SCALESTUDY_SOURCE_DIR");
  REQUIRE(dir != nullptr);
  return dir;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each table's CREATE statement as SQLite stores it, without comments and with runs of
// whitespace made one space: equal texts mean equal tables, columns, types and checks.
std::map<std::string, std::string> schema_of(sqlite::Database& db) {
  auto rows = db.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name");
  REQUIRE(rows);
  std::map<std::string, std::string> tables;
  for (const auto& row : *rows) {
    std::string sql = std::regex_replace(sqlite::to_string(row[1]), std::regex("--[^\n]*"), "");
    sql = std::regex_replace(sql, std::regex("\\s+"), " ");
    sql = std::regex_replace(sql, std::regex(" ?([(),]) ?"), "$1");
    tables[sqlite::to_string(row[0])] = sql;
  }
  return tables;
}

std::map<std::string, std::string> schema_of_sql(const std::string& sql) {
  auto db = sqlite::Database::open(":memory:");
  REQUIRE(db);
  REQUIRE(db->exec(sql));
  return schema_of(*db);
}

struct ModuleRun {
  fs::path dir =
      fs::temp_directory_path() / ("scalestudy_record_module_" + std::to_string(::getpid()));
  ModuleRun() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ModuleRun() { fs::remove_all(dir); }

  // Runs `body` (Python, indented by 4) inside `with record.Run(...) as run:` as rank 1 of 2;
  // `more_arguments` (", target=...") go to Run.
  common::ProcessResult run(const std::string& body, const std::string& more_arguments = "") const {
    const std::string script = "import sys\nsys.path.insert(0, '" + source_dir() +
                               "/python')\nimport scalestudy_record as record\n"
                               "with record.Run(workload='py', config={'lr': 0.1}" +
                               more_arguments + ") as run:\n" + body;
    common::ProcessRequest request;
    request.argv = {"python3", "-c", script};
    request.env_overrides = {{"RANK", "1"},
                             {"LOCAL_RANK", "1"},
                             {"WORLD_SIZE", "2"},
                             {"SCALESTUDY_RUN_ID", "0123456789abcdef"},
                             {"SCALESTUDY_OUT_DIR", dir.string()}};
    request.timeout_ms = 120'000;
    auto result = common::run_process(request);
    REQUIRE(result);
    return *result;
  }
};

TEST_CASE("the recording module writes exactly the documented run-database schema") {
  const std::string doc = read_text(source_dir() + "/docs/run-database.md");
  std::smatch block;
  REQUIRE(std::regex_search(doc, block, std::regex("```sql\\n([\\s\\S]*?)```")));
  const auto documented = schema_of_sql(block[1].str());
  REQUIRE(documented.size() == 9);
  CHECK(schema_of_sql(std::string(run_schema::kCreateSql) + run_schema::kAddedSql) == documented);

  ModuleRun module;
  auto result = module.run("    pass\n");
  INFO(result.stderr_text);
  REQUIRE(result.succeeded());
  auto written =
      sqlite::Database::open((module.dir / "rank1.sqlite").string(), sqlite::OpenMode::kReadOnly);
  REQUIRE(written);
  const auto module_schema = schema_of(*written);
  for (const auto& [table, sql] : documented) {
    INFO(table);
    CHECK(module_schema.count(table) == 1);
    if (module_schema.count(table)) CHECK(module_schema.at(table) == sql);
  }
  CHECK(module_schema.size() == documented.size());
  auto version = written->query_value("PRAGMA user_version");
  REQUIRE(version);
  CHECK(std::get<int64_t>(**version) == run_schema::kVersion);
}

TEST_CASE("what the module records reads back as a completed rank with phases and summary") {
  ModuleRun module;
  auto result = module.run(R"py(    for i in range(6):
        with run.step(epoch=1, samples=32, warmup=i < 2) as step:
            with step.phase("data"):
                pass
            step.times_ms["forward"] += 3.0
            step.times_ms["backward"] += 5.0
            step.loss = 1.0 / (i + 1)
    run.epoch(1, lr=0.1, train_loss=0.5, samples_per_s=640.0, epoch_s=0.5, val_acc=0.75)
    run.summary(final_val_acc=0.75)
)py");
  INFO(result.stderr_text);
  REQUIRE(result.succeeded());
  auto rank = read_rank_database((module.dir / "rank1.sqlite").string());
  REQUIRE(rank);
  CHECK(rank->run_id == "0123456789abcdef");
  CHECK(rank->rank == 1);
  CHECK(rank->world_size == 2);
  CHECK(rank->status == "completed");
  CHECK(rank->tables.at("steps").size() == 6);
  CHECK(rank->tables.at("epochs").size() == 1);
  bool forward_seen = false;
  for (const PhaseAggregate& phase : rank->phases) {
    if (phase.phase != "forward") continue;
    forward_seen = true;
    CHECK(phase.steps == 4);  // the two warm-up steps left out
    CHECK(phase.median_ms == doctest::Approx(3.0));
  }
  CHECK(forward_seen);
  std::map<std::string, double> summary;
  for (const auto& row : rank->tables.at("summary")) {
    summary[sqlite::to_string(row[0])] = std::get<double>(row[1]);
  }
  CHECK(summary.at("final_val_acc") == doctest::Approx(0.75));
  CHECK(summary.count("samples_per_s") == 1);
  CHECK(summary.count("step_ms_median") == 1);
}

TEST_CASE("with a target, the module records the first epoch whose validation reaches it") {
  ModuleRun module;
  auto result =
      module.run(R"py(    for epoch, accuracy in ((1, 0.70), (2, 0.82), (3, 0.79), (4, 0.90)):
        with run.step(epoch=epoch, samples=32):
            pass
        run.epoch(epoch, lr=0.1, train_loss=0.5, samples_per_s=640.0, epoch_s=0.5,
                  val_acc=accuracy)
)py",
                 ", target={'val_accuracy': 0.8}");
  INFO(result.stderr_text);
  REQUIRE(result.succeeded());
  auto rank = read_rank_database((module.dir / "rank1.sqlite").string());
  REQUIRE(rank);
  std::map<std::string, double> summary;
  for (const auto& row : rank->tables.at("summary")) {
    summary[sqlite::to_string(row[0])] = std::get<double>(row[1]);
  }
  CHECK(summary.at("target_val_accuracy") == doctest::Approx(0.8));
  CHECK(summary.at("time_to_target_epoch") == 2);
  CHECK(summary.at("time_to_target_s") >= 0);
}

TEST_CASE("an exception inside the run marks it failed with the reason") {
  ModuleRun module;
  auto result = module.run("    raise RuntimeError('loss is NaN')\n");
  CHECK_FALSE(result.succeeded());
  auto rank = read_rank_database((module.dir / "rank1.sqlite").string());
  REQUIRE(rank);
  CHECK(rank->status == "failed");
  CHECK(rank->failure_reason == "RuntimeError: loss is NaN");
}

}  // namespace
}  // namespace scalestudy::results
