// `scalestudy compare` explains its verdict (issue 30, item 4): two real one-run studies
// of the same small training configuration, run with the local executor, that differ in
// one parameter (lr) and one environment variable (NCCL_ALGO, which a CPU run records in
// its provenance and otherwise ignores). compare must list both beside the verdict, the
// parameter first (parameters are likelier causes than the environment), and nothing the
// two runs share (the host, the binary, the versions). Synthetic data, 12 steps: seconds.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

namespace fs = std::filesystem;
using scalestudy::common::ProcessResult;
using namespace scalestudy::testing;

namespace {

void write_study(const fs::path& path, const std::string& name, const std::string& lr,
                 const std::string& nccl_algo) {
  std::ofstream(path) << "study: " << name << R"(
kind: strong
workload:
  model: small-cnn
  dataset: synthetic
  val_samples: 16
  epochs: 1
  steps_per_epoch: 12
  measure_warmup_steps: 2
  optimizer: sgd
  lr: )" << lr << R"(
  log_interval: 0
  seed: 1
  threads: 1
env: {NCCL_ALGO: )" << nccl_algo
                      << R"(}
scale: [1]
global_batch: 16
slurm: {cpus_per_task: 1}
)";
}

// The index of the difference named `key` in a compared point's list; -1 when absent.
int position_of(const nlohmann::json& differences, const std::string& key) {
  for (size_t i = 0; i < differences.size(); ++i) {
    if (differences[i]["key"] == key) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

TEST_CASE("compare lists a changed parameter and a changed environment variable, in order") {
  if (!fs::exists(binary_dir() + "/scalestudy-train")) {
    SKIP_UNLESS_INSTALLED("needs scalestudy-train");
  }
  const fs::path dir = scratch_dir("compare_explains");
  const std::string results = (dir / "results").string();
  const std::vector<std::vector<std::string>> studies = {{"explain_a", "0.05", "Ring"},
                                                         {"explain_b", "0.1", "Tree"}};
  for (const auto& study : studies) {
    const fs::path yaml = dir / (study[0] + ".yaml");
    write_study(yaml, study[0], study[1], study[2]);
    ProcessResult ran = run_cli({"run", yaml.string(), "--scheduler", "local", "--results-dir",
                                 results, "--no-plots", "--poll-interval", "1"},
                                300'000);
    INFO(ran.stdout_text << ran.stderr_text);
    REQUIRE(ran.exit_code == 0);
  }
  // The variable reached the rank, which recorded it (not only the study's plan).
  ProcessResult recorded =
      run_cli({"query", "explain_b", "SELECT value FROM m_provenance WHERE key = 'env.NCCL_ALGO'",
               "--results-dir", results},
              60'000);
  INFO(recorded.stdout_text << recorded.stderr_text);
  CHECK(recorded.stdout_text.find("Tree") != std::string::npos);

  ProcessResult json = run_cli({"compare", "explain_a", "explain_b", "--results-dir", results,
                                "--format", "json", "--no-ingest"},
                               60'000);
  INFO(json.stdout_text << json.stderr_text);
  // One run a side cannot be judged (no repeats, no variance): no regression, so exit 0.
  REQUIRE(json.exit_code == 0);
  const nlohmann::json document = nlohmann::json::parse(json.stdout_text);
  REQUIRE(document["points"].size() == 1);
  CHECK(document["points"][0]["verdict"] == "cannot judge");
  const nlohmann::json& differences = document["points"][0]["differences"];
  const int lr = position_of(differences, "param.lr");
  const int algo = position_of(differences, "env.NCCL_ALGO");
  REQUIRE(lr >= 0);
  REQUIRE(algo >= 0);
  CHECK(lr < algo);
  CHECK(differences[lr]["kind"] == "parameters");
  CHECK(differences[lr]["a"] == nlohmann::json::array({"0.05"}));
  CHECK(differences[lr]["b"] == nlohmann::json::array({"0.1"}));
  CHECK(differences[algo]["kind"] == "environment");
  CHECK(differences[algo]["a"] == nlohmann::json::array({"Ring"}));
  CHECK(differences[algo]["b"] == nlohmann::json::array({"Tree"}));
  for (const char* shared : {"host", "hostname", "binary_build_id", "git_commit",
                             "libtorch_version", "param.model", "param.epochs"}) {
    CHECK_MESSAGE(position_of(differences, shared) < 0, shared);
  }

  ProcessResult table = run_cli(
      {"compare", "explain_a", "explain_b", "--results-dir", results, "--no-ingest"}, 60'000);
  INFO(table.stdout_text << table.stderr_text);
  const size_t lr_at = table.stdout_text.find("param.lr");
  const size_t algo_at = table.stdout_text.find("env.NCCL_ALGO");
  CHECK(lr_at != std::string::npos);
  CHECK(algo_at != std::string::npos);
  CHECK(lr_at < algo_at);
  fs::remove_all(dir);
}
