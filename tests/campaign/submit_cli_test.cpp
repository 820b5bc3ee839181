// `scalestudy submit/status/wait` with the local scheduler against a fake workload: retries
// up to max_attempts, and (when built) the quickstart study. Two concurrent submits are in
// the fault suite (fault_suite_test.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/core/sqlite.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

int64_t count_of(const std::string& database, const std::string& sql) {
  auto db = scalestudy::sqlite::Database::open(database, scalestudy::sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto value = db->query_value(sql);
  REQUIRE(value.is_ok());
  return std::get<int64_t>(**value);
}

}  // namespace

TEST_CASE("a failing run is retried up to max_attempts, then reported failed with its reason") {
  fs::path dir = scratch_dir("retry_submit");
  std::string workload = write_fake_workload(dir);
  std::ofstream(dir / "study.yaml") << "study: retry\nworkload: {binary: " << workload
                                    << "}\nmatrix: {fail: [0, 1]}\nmax_attempts: 2\n";
  const std::string results = (dir / "results").string();
  std::vector<std::string> submit = {
      "submit", (dir / "study.yaml").string(), "--scheduler", "local", "--results-dir", results};
  REQUIRE(run_cli(submit).exit_code == 0);
  ProcessResult status = run_cli(
      {"status", (dir / "study.yaml").string(), "--format", "json", "--results-dir", results});
  REQUIRE(status.exit_code == 0);
  auto json = nlohmann::json::parse(status.stdout_text);
  CHECK(json["completed"] == 1);
  CHECK(json["to_retry"] == 1);

  REQUIRE(run_cli(submit).exit_code == 0);
  ProcessResult last = run_cli(submit);
  CHECK(last.stdout_text.find("0 submitted, 1 completed, 0 in flight, 1 failed for good") !=
        std::string::npos);
  const std::string database = results + "/retry.sqlite";
  CHECK(count_of(database, "SELECT COUNT(*) FROM attempts") == 3);
  CHECK(count_of(database, "SELECT COUNT(*) FROM attempts WHERE state = 'FAILED'") == 2);

  ProcessResult waited = run_cli({"wait", "retry", "--results-dir", results});
  CHECK(waited.exit_code == 1);
  // A one-rank run starts without scalestudy-launch: the reason names the rank itself.
  // Exit 3 and nothing in the log: class unknown, retried up to max_attempts as before.
  CHECK(waited.stderr_text.find("FAILED after 2 attempts [unknown]: FAILED (rank 0 exited with "
                                "code 3): no traceback") != std::string::npos);
  ProcessResult table = run_cli({"status", "retry", "--results-dir", results});
  CHECK(table.stdout_text.find("FAILED (final)") != std::string::npos);
  CHECK(table.stdout_text.find("fail=1") != std::string::npos);
  CHECK(table.stdout_text.find("1/2 done, 1 failed") != std::string::npos);
}

TEST_CASE("a run that raises, and a binary that does not exist, fail once with their class") {
  fs::path dir = scratch_dir("failure_classes_submit");
  fs::create_directories(dir);
  const fs::path raising = dir / "raising.sh";
  std::ofstream(raising)
      << "#!/bin/sh\necho 'step 1'\necho 'Traceback (most recent call last):' >&2\n"
         "echo '  File \"train.py\", line 3, in <module>' >&2\n"
         "echo 'ZeroDivisionError: division by zero' >&2\nexit 1\n";
  fs::permissions(raising, fs::perms::all);
  std::ofstream(dir / "study.yaml")
      << "study: classes\nworkload: {binary: " << raising.string() << "}\n";
  std::ofstream(dir / "missing.yaml")
      << "study: missing\nworkload: {binary: " << (dir / "no-such-binary").string() << "}\n";
  const std::string results = (dir / "results").string();
  for (const char* study : {"study.yaml", "missing.yaml"}) {
    std::vector<std::string> submit = {"submit", (dir / study).string(), "--scheduler",
                                       "local",  "--results-dir",        results};
    REQUIRE(run_cli(submit).exit_code == 0);
    run_cli(submit);  // the policy retries neither: nothing more is submitted
  }
  CHECK(count_of(results + "/classes.sqlite", "SELECT COUNT(*) FROM attempts") == 1);
  CHECK(count_of(results + "/missing.sqlite", "SELECT COUNT(*) FROM attempts") == 1);

  ProcessResult status =
      run_cli({"status", "classes", "--format", "json", "--results-dir", results});
  REQUIRE(status.exit_code == 0);
  auto json = nlohmann::json::parse(status.stdout_text);
  CHECK(json["failed"] == 1);
  CHECK(json["runs"][0]["failure_class"] == "program");
  CHECK(json["runs"][0]["failure_evidence"] == "rank0.log: ZeroDivisionError: division by zero");
  CHECK(json["failed_attempts"][0]["failure_class"] == "program");
  ProcessResult table = run_cli({"status", "classes", "--results-dir", results});
  CHECK(table.stdout_text.find("failed attempts") != std::string::npos);
  CHECK(table.stdout_text.find("FAILED after 1 attempt [program]: rank0.log: ZeroDivisionError") !=
        std::string::npos);

  ProcessResult missing =
      run_cli({"status", "missing", "--format", "json", "--results-dir", results});
  auto missing_json = nlohmann::json::parse(missing.stdout_text);
  CHECK(missing_json["runs"][0]["failure_class"] == "setup");
  CHECK(missing_json["runs"][0]["failure_evidence"].get<std::string>().find("cannot execute") !=
        std::string::npos);
}

TEST_CASE("submit reports invalid parameters (exit 1) before a bad --max-gpu-hours (exit 2)") {
  const fs::path dir = scratch_dir("submit_cli_params_first");
  const std::string workload = write_describing_workload(dir);
  const std::string results = (dir / "results").string();
  for (const char* epochs : {"0", "2"}) {
    const fs::path study = dir / (std::string("epochs") + epochs + ".yaml");
    std::ofstream(study) << "study: cap" << epochs << "\nworkload: {binary: " << workload
                         << ", epochs: " << epochs << "}\n";
    auto submitted = run_cli({"submit", study.string(), "--scheduler", "local", "--results-dir",
                              results, "--max-gpu-hours", "lots"});
    const bool invalid = std::string(epochs) == "0";
    CHECK(submitted.exit_code == (invalid ? 1 : 2));
    CHECK((submitted.stderr_text.find("--epochs") != std::string::npos) == invalid);
    CHECK((submitted.stderr_text.find("--max-gpu-hours takes a number") != std::string::npos) ==
          !invalid);
  }
}

TEST_CASE("the quickstart study completes with the local executor") {
  const std::string train = binary_dir() + "/scalestudy-train";
  const char* source = std::getenv("SCALESTUDY_SOURCE_DIR");
  if (!fs::exists(train) || source == nullptr || !fs::exists("/usr/share/datasets/fashion-mnist")) {
    SKIP_UNLESS_INSTALLED("needs scalestudy-train and /usr/share/datasets/fashion-mnist");
  }
  fs::path dir = scratch_dir("quickstart_local");
  const std::string results = (dir / "results").string();
  ProcessResult submitted =
      run_cli({"submit", std::string(source) + "/studies/quickstart.yaml", "--scheduler", "local",
               "--results-dir", results, "--max-parallel", "1"},
              600'000);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  CHECK(run_cli({"wait", "quickstart", "--results-dir", results}).exit_code == 0);
  for (const auto& entry : fs::directory_iterator(results + "/quickstart/runs")) {
    CHECK(fs::exists(entry.path() / "rank0.sqlite"));
  }
}
