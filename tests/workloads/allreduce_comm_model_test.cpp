// The communication model end to end with the local executor: a study of one 2-rank
// all-reduce sweep (the workload named by path, with its own parameters) and a study of
// one 2-rank small-cnn training run; the training study's report, pointed at the sweep
// with --comm-model, fills the predicted-vs-measured fields of its JSON from the sweep's
// measured bus bandwidth and the run's gradient bytes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "orchestrator/common/process_runner.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

common::ProcessResult scalestudy_cli(std::vector<std::string> args) {
  args.insert(args.begin(), testing::binary("scalestudy"));
  auto result = common::run_process({args, {}, 300'000});
  REQUIRE_MESSAGE(result, result.status().message());
  INFO(common::describe_command(args) << "\n" << result->stdout_text << result->stderr_text);
  REQUIRE(result->exit_code == 0);
  return *result;
}

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("a training study's report predicts its communication from a measured sweep") {
  const std::string dir = testing::fresh_dir("allreduce-comm-model");
  const std::string results = dir + "/results";
  const std::string sweep = write_file(dir + "/sweep.yaml", R"(study: e2e-allreduce
workload:
  binary: )" + testing::binary("scalestudy-allreduce") + R"(
  min_bytes: 64K
  max_bytes: 4M
  step_factor: 4
  iters: 5
  warmup_iters: 1
scale: [2]
slurm: {ranks_per_node: 2, time: "10"}
)");
  const std::string training = write_file(dir + "/train.yaml", R"(study: e2e-train
workload:
  model: small-cnn
  dataset: synthetic
  epochs: 1
  steps_per_epoch: 8
  measure_warmup_steps: 2
  seed: 1
scale: [2]
global_batch: 32
slurm: {ranks_per_node: 2, time: "10"}
)");
  for (const std::string& study : {sweep, training}) {
    scalestudy_cli({"run", study, "--scheduler", "local", "--results-dir", results, "--no-plots",
                    "--poll-interval", "0.2"});
  }

  auto sweep_report =
      nlohmann::json::parse(scalestudy_cli({"report", "e2e-allreduce", "--results-dir", results,
                                            "--no-plots", "--format", "json"})
                                .stdout_text);
  CHECK(sweep_report["points"].empty());
  REQUIRE(sweep_report["bandwidth_curves"].size() == 1);
  const auto& curve = sweep_report["bandwidth_curves"][0];
  CHECK(curve["world_size"] == 2);
  std::vector<double> busbw;
  std::vector<int64_t> bytes;
  for (const auto& point : curve["points"]) {
    bytes.push_back(point["bytes"]);
    busbw.push_back(point["busbw_gbps"]);
  }
  CHECK(bytes == std::vector<int64_t>{65536, 262144, 1048576, 4194304});
  CHECK(*std::min_element(busbw.begin(), busbw.end()) > 0);

  auto report = nlohmann::json::parse(
      scalestudy_cli({"report", "e2e-train", "--results-dir", results, "--no-plots", "--format",
                      "json", "--comm-model", "e2e-allreduce"})
          .stdout_text);
  REQUIRE(report["points"].size() == 1);
  const auto& point = report["points"][0];
  const std::string run_id = point["runs"]["run_ids"][0];
  const auto& comm = point["comm_model"];
  REQUIRE(comm.is_object());
  CHECK(comm["curve"] == curve["run_id"].get<std::string>() + " (world size 2)");
  // The bandwidth at the run's single bucket (all of small-cnn's gradients, under the
  // 25 MiB cap) is interpolated between two measured sizes.
  const double gradient_bytes =
      testing::db_number(results + "/e2e-train/runs/" + run_id + "/rank0.sqlite",
                         "SELECT value FROM summary WHERE name = 'gradient_bytes'");
  REQUIRE(gradient_bytes > 65536);
  REQUIRE(gradient_bytes < 4194304);
  const double bandwidth = comm["busbw_gbps"];
  CHECK(bandwidth >= *std::min_element(busbw.begin(), busbw.end()));
  CHECK(bandwidth <= *std::max_element(busbw.begin(), busbw.end()));
  // 2 ranks: 2(n−1)/n = 1, so the all-reduce moves the gradient bytes once at busbw.
  CHECK(comm["comm_ms"].get<double>() == doctest::Approx(gradient_bytes / (bandwidth * 1e9) * 1e3));
  const double compute_ms = comm["compute_ms"];
  CHECK(compute_ms > 0);
  CHECK(comm["predicted_step_ms"].get<double>() ==
        doctest::Approx(compute_ms + comm["comm_ms"].get<double>()));
  CHECK(comm["measured_step_ms"] == point["step_ms"]["median"]);
  CHECK(comm["predicted_efficiency"].get<double>() ==
        doctest::Approx(compute_ms / comm["predicted_step_ms"].get<double>()));
  CHECK(comm["measured_efficiency"].get<double>() ==
        doctest::Approx(compute_ms / comm["measured_step_ms"].get<double>()));
  CHECK(report["bandwidth_curves"].empty());  // the curves were the sweep study's

  const std::string table = scalestudy_cli({"report", "e2e-train", "--results-dir", results,
                                            "--no-plots", "--comm-model", "e2e-allreduce"})
                                .stdout_text;
  CHECK(table.find("Communication model (all-reduce busbw at the bucket size") !=
        std::string::npos);
}

}  // namespace scalestudy
