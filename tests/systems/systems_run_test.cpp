// Studies on systems through the CLI on this machine's local executor: a system that
// declares GPUs it does not have warns at ingest and in the report, and its stated peak is
// what MFU divides by; two systems give a
// table each, the systems side by side, a `system` in the plan's and the report's JSON,
// and `compare STUDY@SYSTEM`; a run over a limit is refused before anything is submitted.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/shell_output.hpp"
#include "tests/support/skip.hpp"
#include "tests/systems/system_files.hpp"

namespace scalestudy::testing {
namespace {

namespace fs = std::filesystem;

// A short CPU run of the training workload on synthetic data.
constexpr const char* kStudy = R"(kind: strong
workload: {model: small-cnn, dataset: synthetic, epochs: 1, steps_per_epoch: 4,
           measure_warmup_steps: 1, seed: 1}
global_batch: 32
)";

struct Scratch {
  SystemFiles files;
  fs::path results;
  explicit Scratch(const std::string& name) : files(name), results(files.dir / "results") {}

  std::string study(const std::string& name, const std::string& body) const {
    const fs::path path = files.dir / (name + ".yaml");
    std::ofstream(path) << "study: " << name << "\n" << kStudy << body;
    return path.string();
  }

  // `scalestudy ARGUMENTS` on this folder's systems; the results here unless `validate`.
  ShellOutput cli(const std::string& arguments, bool merged = false) const {
    std::string command = "SCALESTUDY_SYSTEMS='" + files.dir.string() +
                          "' XDG_CONFIG_HOME=/nonexistent '" + binary() + "/scalestudy' " +
                          arguments;
    if (arguments.rfind("validate", 0) != 0) command += " --results-dir '" + results.string() + "'";
    return merged ? run_shell_merged(command) : run_shell(command + " 2>/dev/null");
  }

  static std::string binary() { return std::string(std::getenv("SCALESTUDY_BINARY_DIR")) + "/bin"; }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool workload_built() {
  return fs::exists(Scratch::binary() + "/scalestudy-train");
}

TEST_CASE("a system that declares 4 GPUs per node, run on a CPU node, warns at ingest") {
  if (!workload_built()) SKIP_UNLESS_INSTALLED("no scalestudy-train (workloads not built)");
  Scratch scratch("mismatch");
  scratch.files.write("gpu4", R"(scheduler: {kind: local}
node: {gpus: 4, gpu_model: NVIDIA H100 80GB HBM3, cores: 4096}
peak: {tflops: {fp32: 0.5}}
detect: {hostname: "gpu-node-[0-9]+"}
)");
  // The study keeps its run on the CPU: its own gpus_per_node wins over the system's.
  const std::string study = scratch.study(
      "mismatch", "scale: [1]\nsystems: [gpu4]\nslurm: {gpus_per_node: 0, time: \"5\"}\n");
  ShellOutput submitted = scratch.cli("submit '" + study + "'", true);
  CAPTURE(submitted.text);
  REQUIRE(submitted.exit_code == 0);
  ShellOutput plan = scratch.cli("plan '" + study + "' --format json");
  const nlohmann::json planned = nlohmann::json::parse(plan.text);
  const std::string run_id = planned["runs"][0]["run_id"];
  CHECK(planned["runs"][0]["system"]["label"] == "gpu4");

  ShellOutput ingested = scratch.cli("ingest mismatch", true);
  CAPTURE(ingested.text);
  CHECK(ingested.exit_code == 0);
  CHECK(has(ingested.text,
            "warning: system gpu4 declares 4 GPUs per node; run " + run_id + " saw 0\n"));
  CHECK(has(ingested.text, "warning: system gpu4 declares 4096 cores per node; run " + run_id));
  CHECK(has(ingested.text, "system gpu4 declares hosts matching 'gpu-node-[0-9]+'; run " + run_id));

  ShellOutput report = scratch.cli("report mismatch --format json --no-plots");
  const nlohmann::json document = nlohmann::json::parse(report.text);
  CHECK(document["points"][0]["system"] == "gpu4");
  // The system's stated peak is its H100's: a run that saw no GPU is not measured by it.
  const nlohmann::json& ceilings = document["points"][0]["ceilings"];
  REQUIRE(ceilings.is_object());
  CHECK(ceilings["peak_tflops"].is_null());
  CHECK(ceilings["mfu"].is_null());
  CHECK(ceilings["peak_note"] ==
        "CPU: no datasheet peak (system gpu4's peak is for NVIDIA H100 80GB HBM3, not cpu)");
  bool warned = false;
  for (const auto& warning : document["warnings"]) {
    warned = warned || warning == "system gpu4 declares 4 GPUs per node; run " + run_id + " saw 0";
  }
  CHECK(warned);
}

TEST_CASE("two systems: a table each, side by side, in JSON, and compare STUDY@SYSTEM") {
  if (!workload_built()) SKIP_UNLESS_INSTALLED("no scalestudy-train (workloads not built)");
  Scratch scratch("sidebyside");
  scratch.files.write("serial", R"(description: this machine, one run at a time
scheduler: {kind: local, max_parallel: 1}
node: {gpus: 0}
)");
  const std::string study =
      scratch.study("pair", "scale: [1, 2]\nrepeats: 2\nsystems: [local, serial]\n");
  ShellOutput ran = scratch.cli("run '" + study + "' --poll-interval 1 --no-plots", true);
  CAPTURE(ran.text);
  REQUIRE(ran.exit_code == 0);
  CHECK(has(ran.text, "Strong scaling: pair on local\n"));
  CHECK(has(ran.text, "Strong scaling: pair on serial\n"));
  CHECK(has(ran.text, "Systems side by side: pair (ratio: system / local"));

  ShellOutput report = scratch.cli("report pair --format json --no-plots");
  const nlohmann::json document = nlohmann::json::parse(report.text);
  CHECK(document["systems"] == nlohmann::json::array({"local", "serial"}));
  REQUIRE(document["systems_side_by_side"].size() == 2);
  for (const auto& point : document["systems_side_by_side"]) {
    CHECK(point["system"] == "serial");
    CHECK(point["reference"] == "local");
    CHECK(point["ratio"].get<double>() > 0);
    CHECK(point["ratio_ci95"].is_array());  // two repeats a side
    CHECK(point["welch_t"].is_number());
    CHECK(point["efficiency"].is_number());
  }
  // Each system's series has its own baseline.
  int baselines = 0;
  for (const auto& point : document["points"]) baselines += point["is_baseline"].get<bool>();
  CHECK(baselines == 2);

  ShellOutput csv = scratch.cli("report pair --format csv --no-plots");
  CHECK(has(csv.text, "system=serial"));

  ShellOutput compared =
      scratch.cli("compare pair@local pair@serial --threshold-pct 1000 --format json");
  CAPTURE(compared.text);
  CHECK(compared.exit_code == 0);
  const nlohmann::json comparison = nlohmann::json::parse(compared.text);
  REQUIRE(comparison["points"].size() == 2);
  CHECK(comparison["points"][0]["config"] == "default");
}

TEST_CASE("a run over a system's limit is refused before anything is submitted") {
  Scratch scratch("refused");
  const std::string study = scratch.study(
      "toobig", "scale:\n  - {nodes: 4, ranks_per_node: 1}\nsystems: [testcluster-small]\n");
  ShellOutput submitted = scratch.cli("submit '" + study + "' --scheduler slurm", true);
  CAPTURE(submitted.text);
  CHECK(submitted.exit_code == 1);
  CHECK(has(submitted.text, study +
                                ":7:5: field 'scale': 4 ranks on 4 nodes is more than "
                                "limits.max_nodes 2 of system testcluster-small (" +
                                SystemFiles::shipped_dir() + "/testcluster-small.yaml:7:14)"));
  CHECK_FALSE(fs::exists(scratch.results / "toobig.sqlite"));
  CHECK_FALSE(fs::exists(scratch.results / "toobig"));
  CHECK(scratch.cli("validate '" + study + "'").exit_code == 1);
  CHECK(scratch.cli("plan '" + study + "'").exit_code == 1);
}

}  // namespace
}  // namespace scalestudy::testing
