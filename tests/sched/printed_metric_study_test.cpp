// A study of many runs of a program that only prints (echo one metric line): `scalestudy
// run` on the local executor executes, ingests and reports every run, each COMPLETED and
// measured by its output. The CI-sized version of the 1,000-run study of issue 18 (set
// SCALESTUDY_PRINTED_RUNS=1000 to run that one).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/core/sqlite.hpp"
#include "tests/support/cli_test_support.hpp"

using namespace scalestudy;
using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

int printed_runs() {
  const char* runs = std::getenv("SCALESTUDY_PRINTED_RUNS");
  return runs != nullptr ? std::atoi(runs) : 100;
}

std::string scalar(const std::string& db_path, const std::string& sql) {
  auto db = sqlite::Database::open(db_path, sqlite::OpenMode::kReadOnly);
  REQUIRE(db);
  auto value = db->query_value(sql);
  REQUIRE_MESSAGE(value, value.status().message());
  return *value ? sqlite::to_string(**value) : "<none>";
}

}  // namespace

TEST_CASE("every run of a printing program completes, is ingested and reported") {
  const int runs = printed_runs();
  fs::path dir = scratch_dir("printed_metric_study");
  const std::string study = (dir / "printed.yaml").string();
  std::ofstream(study) << "study: printed\n"
                          "workload:\n"
                          "  binary: /bin/echo\n"
                          "  args: ['throughput 1000 img/s']\n"
                          "  run_flags: false\n"
                          "repeats: "
                       << runs
                       << "\n"
                          "metrics:\n"
                          "  throughput:\n"
                          "    pattern: 'throughput ([0-9]+) img/s'\n"
                          "    unit: img/s\n"
                          "    role: throughput\n";
  const std::string results = (dir / "results").string();
  ProcessResult ran = run_cli({"run", study, "--scheduler", "local", "--results-dir", results,
                               "--poll-interval", "1", "--no-plots", "--format", "csv"},
                              550'000);
  INFO(ran.stdout_text.substr(0, 2000) << ran.stderr_text.substr(0, 2000));
  REQUIRE(ran.exit_code == 0);
  const std::string db = results + "/printed.sqlite";
  REQUIRE(fs::exists(db));
  CHECK(scalar(db, "SELECT count(*) FROM runs") == std::to_string(runs));
  CHECK(scalar(db, "SELECT count(*) FROM runs WHERE state = 'COMPLETED'") == std::to_string(runs));
  CHECK(scalar(db, "SELECT count(*) FROM m_ingest WHERE status = 'ingested'") ==
        std::to_string(runs));
  CHECK(scalar(db,
               "SELECT count(*) FROM m_output_metrics WHERE name = 'throughput' AND "
               "value = 1000") == std::to_string(runs));
  CHECK(ran.stdout_text.find("1000") != std::string::npos);  // the report's throughput
}
