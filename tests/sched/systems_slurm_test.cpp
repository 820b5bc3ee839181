// One study on three systems (docs/systems.md): `scalestudy run studies/quickstart-systems.yaml`
// runs the quickstart ladder on this machine (local) and on the test cluster's partitions
// small and big, ends in an efficiency table per system and the systems side by side, and
// sacct shows each SLURM job in its system's partition; and a training script as it is (a
// rendered TOML file, metrics from files) on the cluster. Needs root, the cluster scripts and
// scalestudy-train; skipped otherwise.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/slurm_cluster_session.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Job id -> partition, as accounting has them.
std::map<std::string, std::string> partitions_of(const std::string& job_ids) {
  auto listed =
      run_process({{"sacct", "-X", "-n", "--parsable2", "-j", job_ids, "--format=JobID,Partition"},
                   {},
                   30'000});
  REQUIRE(listed.is_ok());
  std::map<std::string, std::string> partitions;
  std::stringstream lines(listed->stdout_text);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|');
    if (bar != std::string::npos) partitions[line.substr(0, bar)] = line.substr(bar + 1);
  }
  return partitions;
}

}  // namespace

TEST_CASE("quickstart-systems: local and two partitions side by side in one run") {
  REQUIRE_CLUSTER();
  if (!fs::exists(binary_dir() + "/scalestudy-train")) {
    SKIP_UNLESS_INSTALLED("no scalestudy-train (workloads not built)");
  }
  const std::string study =
      std::string(std::getenv("SCALESTUDY_SOURCE_DIR")) + "/studies/quickstart-systems.yaml";
  const fs::path results = ClusterSession::get().work_dir() / "systems" / "results";
  fs::remove_all(results);

  ProcessResult ran = run_cli({"run", study, "--results-dir", results.string(), "--poll-interval",
                               "1", "--timeout", "900", "--no-plots"},
                              1'000'000);
  INFO(ran.stdout_text << ran.stderr_text);
  REQUIRE(ran.exit_code == 0);
  for (const char* system : {"local", "testcluster-small", "testcluster-big"}) {
    CHECK(has(ran.stdout_text, std::string("Strong scaling: quickstart-systems on ") + system));
  }
  CHECK(has(ran.stdout_text, "Systems side by side: quickstart-systems (ratio: system / local"));

  nlohmann::json status = status_of(study, results.string());
  REQUIRE(status["runs"].size() == 6);
  std::map<std::string, std::string> wanted;  // SLURM job id -> its system's partition
  int local_runs = 0;
  std::string job_ids;
  for (const auto& run : status["runs"]) {
    CHECK(run["state"] == "COMPLETED");
    const std::string system = run["varied"]["system"];
    if (system == "local") {
      ++local_runs;
      CHECK(run["scheduler"] == "local");
      continue;
    }
    CHECK(run["scheduler"] == "slurm");
    const std::string job = run["job_id"];
    wanted[job] = system == "testcluster-small" ? "small" : "big";
    job_ids += (job_ids.empty() ? "" : ",") + job;
  }
  CHECK(local_runs == 2);
  REQUIRE(wanted.size() == 4);
  CHECK(partitions_of(job_ids) == wanted);
}

// A training script as it is (issue 65), on the cluster: the trainer that reads a TOML file
// the study renders into each run's folder and writes its metrics only to files
// (tests/study/any_script/toml.yaml), through sbatch at 1 and 2 ranks. The rendered file and
// the metrics files live in the run folders the job writes on its node.
TEST_CASE("a trainer reading a rendered TOML file, measured from its files, on the cluster") {
  REQUIRE_CLUSTER();
  const fs::path scripts =
      fs::path(std::getenv("SCALESTUDY_SOURCE_DIR")) / "tests/study/any_script";
  const fs::path results = ClusterSession::get().work_dir() / "any-toml" / "results";
  fs::remove_all(results);
  auto in_scripts = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {"/bin/sh",
                                     "-c",
                                     "cd \"$1\" && shift && exec \"$@\"",
                                     "sh",
                                     scripts.string(),
                                     binary_dir() + "/scalestudy"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = run_process({argv, {}, 1'000'000});
    REQUIRE(result.is_ok());
    return *result;
  };
  ProcessResult ran =
      in_scripts({"run", "toml.yaml", "--scheduler", "slurm", "--results-dir", results.string(),
                  "--poll-interval", "1", "--timeout", "600", "--no-plots"});
  INFO(ran.stdout_text << ran.stderr_text);
  REQUIRE(ran.exit_code == 0);
  ProcessResult reported = in_scripts(
      {"report", "any-toml", "--results-dir", results.string(), "--format", "json", "--no-plots"});
  INFO(reported.stderr_text);
  REQUIRE(reported.exit_code == 0);
  const auto report = nlohmann::json::parse(reported.stdout_text);
  CHECK(report["settings"]["throughput_unit"] == "tokens");
  REQUIRE(report["points"].size() == 2);
  for (const auto& point : report["points"]) {
    CHECK(point["throughput_samples_per_s"]["median"].get<double>() > 0);
    REQUIRE(point["efficiency"].is_number());
    CHECK(point["efficiency"].get<double>() > 0);
  }
  for (const auto& run : status_of((scripts / "toml.yaml").string(), results.string())["runs"]) {
    CHECK(run["state"] == "COMPLETED");
    CHECK(run["scheduler"] == "slurm");
  }
}
