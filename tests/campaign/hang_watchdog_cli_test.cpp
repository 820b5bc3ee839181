// A run that makes no progress is caught by scalestudy-launch's watchdog (policy.hang_after):
// every rank's stacks are written to the run's stacks/ folder with the blocked frame named,
// the run is stopped long before its own end, its attempt is class `hang`, and it is retried
// once (policy.retry.hang: 1), then left failed.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

TEST_CASE("a run without progress is stopped with every rank's stacks, class hang, retried once") {
  if (std::system("command -v gdb >/dev/null 2>&1") != 0) {
    SKIP_UNLESS_INSTALLED("gdb (scripts/install-deps.sh) takes the stacks");
  }
  const fs::path dir = scratch_dir("hang_watchdog");
  fs::create_directories(dir);
  const fs::path quiet = dir / "quiet.sh";
  // Says one line, then blocks (as a rank stuck before its first all-reduce).
  std::ofstream(quiet) << "#!/bin/sh\necho \"rank $RANK step 1 $TORCH_NCCL_DUMP_ON_TIMEOUT\"\n"
                          "exec sleep 120\n";
  fs::permissions(quiet, fs::perms::all);
  std::ofstream(dir / "study.yaml")
      << "study: hang\nworkload: {binary: " << quiet.string()
      << "}\nscale: [2]\nslurm: {ranks_per_node: 2}\npolicy: {hang_after: 2}\n";
  const std::string results = (dir / "results").string();
  const std::vector<std::string> submit = {"submit",        (dir / "study.yaml").string(),
                                           "--scheduler",   "local",
                                           "--results-dir", results,
                                           "--max-slots",   "2"};
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(run_cli(submit).exit_code == 0);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(60));

  auto status = run_cli({"status", "hang", "--format", "json", "--results-dir", results});
  REQUIRE(status.exit_code == 0);
  auto json = nlohmann::json::parse(status.stdout_text);
  const auto& run = json["runs"][0];
  CHECK(run["failure_class"] == "hang");
  CHECK(run["failure_evidence"].get<std::string>().find(
            "launch.log: scalestudy-launch: no progress for 2 s") != std::string::npos);
  const fs::path stacks = fs::path(run["out_dir"].get<std::string>()) / "stacks";
  for (const char* rank : {"rank0.txt", "rank1.txt"}) {
    CAPTURE(rank);
    // The blocked frame is named.
    CHECK(read_file((stacks / rank).string()).find("nanosleep") != std::string::npos);
  }
  // PyTorch's NCCL flight recorder was on for the ranks.
  CHECK(read_file((fs::path(run["out_dir"].get<std::string>()) / "rank1.log").string())
            .find("rank 1 step 1 1") != std::string::npos);
  // Retried once, then left failed.
  REQUIRE(run_cli(submit).exit_code == 0);
  auto last = run_cli(submit);
  CHECK(last.stdout_text.find("0 submitted, 0 completed, 0 in flight, 1 failed for good") !=
        std::string::npos);
  auto final_status = run_cli({"status", "hang", "--format", "json", "--results-dir", results});
  CHECK(nlohmann::json::parse(final_status.stdout_text)["runs"][0]["attempts"] == 2);
}
