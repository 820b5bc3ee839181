// `scalestudy plan` and `scalestudy validate` on the example studies in studies/: the
// expected number of runs, one job script per run with `--emit-scripts`, every script
// passing `bash -n`, and the documented exit codes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/shell_output.hpp"

namespace {

namespace fs = std::filesystem;

using scalestudy::testing::run_shell;
using scalestudy::testing::ShellOutput;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  REQUIRE(value != nullptr);
  return value;
}

ShellOutput run(const std::string& arguments, bool with_stderr = false) {
  std::string command = env("SCALESTUDY_BINARY_DIR") + "/bin/scalestudy " + arguments +
                        (with_stderr ? " 2>&1" : " 2>/dev/null");
  return run_shell(command);
}

const std::map<std::string, size_t> kExpectedRuns = {
    {"quickstart.yaml", 2},
    {"quickstart-packed.yaml", 6},
    {"quickstart-systems.yaml", 6},
    {"time-to-target.yaml", 2},
    {"allreduce-sweep.yaml", 3},
    {"resnet18-cifar10-strong.yaml", 15},
    {"resnet18-cifar10-weak.yaml", 15},
    {"resnet18-cifar10-sensitivity.yaml", 54},
    {"tinyimagenet-resnet50.yaml", 7},
    {"ddpm-emnist.yaml", 12},
    {"lm-fortunes-strong.yaml", 2},
    {"lm-fortunes-weak.yaml", 9},
    {"lm-seq-len-sharding.yaml", 18},
    {"lm-gpt2-small-4xh100.yaml", 18},
};

// tests/study/example_run_ids.txt: study file -> its run ids in plan order.
std::map<std::string, std::vector<std::string>> expected_run_ids() {
  std::ifstream file(env("SCALESTUDY_SOURCE_DIR") + "/tests/study/example_run_ids.txt");
  std::map<std::string, std::vector<std::string>> ids;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream words(line);
    std::string name, id;
    size_t count = 0;
    words >> name >> count;
    while (words >> id) ids[name].push_back(id);
    CHECK(ids[name].size() == count);
  }
  return ids;
}

TEST_CASE("every example study plans to the expected runs and valid job scripts") {
  const auto golden_ids = expected_run_ids();
  fs::path studies = fs::path(env("SCALESTUDY_SOURCE_DIR")) / "studies";
  fs::path scratch = fs::temp_directory_path() / ("scalestudy-plan-" + std::to_string(getpid()));
  size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(studies)) {
    if (entry.path().extension() != ".yaml") continue;
    std::string name = entry.path().filename().string();
    CAPTURE(name);
    REQUIRE(kExpectedRuns.count(name) == 1);
    size_t runs = kExpectedRuns.at(name);
    ++seen;

    fs::path scripts = scratch / name;
    ShellOutput table =
        run("plan '" + entry.path().string() + "' --emit-scripts '" + scripts.string() +
            "' --results-dir '" + (scratch / "results").string() + "'");
    CAPTURE(table.text);
    REQUIRE(table.exit_code == 0);
    CHECK(table.text.find("): " + std::to_string(runs) + " runs\n") != std::string::npos);
    // Header line, column titles, rule, one line per run, a packed study's allocations (a
    // line, then one each), the requested and estimated totals.
    long packing_lines = 0;
    std::stringstream lines(table.text);
    for (std::string line; std::getline(lines, line);) {
      packing_lines += line.rfind("packed, policy ", 0) == 0 || line.rfind("  allocation ", 0) == 0;
    }
    CHECK((packing_lines > 0) == (name.find("packed") != std::string::npos));
    CHECK(std::count(table.text.begin(), table.text.end(), '\n') == long(runs + 5) + packing_lines);
    CHECK(table.text.find("total: " + std::to_string(runs) + " runs, ") != std::string::npos);

    size_t files = 0;
    for (const auto& script : fs::directory_iterator(scripts)) {
      ++files;
      CAPTURE(script.path().string());
      CHECK(script.path().extension() == ".sbatch");
      CHECK(std::system(("bash -n '" + script.path().string() + "'").c_str()) == 0);
    }
    CHECK(files == runs);

    ShellOutput json = run("plan '" + entry.path().string() + "' --format json");
    REQUIRE(json.exit_code == 0);
    nlohmann::json parsed = nlohmann::json::parse(json.text);
    CHECK(parsed["runs"].size() == runs);
    std::vector<std::string> run_ids;
    for (const auto& run : parsed["runs"]) run_ids.push_back(run["run_id"]);
    CHECK(run_ids == golden_ids.at(name));
    CHECK(parsed["totals"]["runs"] == runs);
    CHECK(parsed["source_path"].get<std::string>() == entry.path().string());

    ShellOutput csv = run("plan '" + entry.path().string() + "' --format csv");
    REQUIRE(csv.exit_code == 0);
    CHECK(csv.text.rfind("run_id,repeat,nodes,world_size,", 0) == 0);
    CHECK(std::count(csv.text.begin(), csv.text.end(), '\n') == long(runs + 3) + packing_lines);
  }
  CHECK(seen == kExpectedRuns.size());
  fs::remove_all(scratch);
}

TEST_CASE("plan prints the GPU-hours the strong study requests") {
  const std::string study = env("SCALESTUDY_SOURCE_DIR") + "/studies/resnet18-cifar10-strong.yaml";
  // 30 minutes × (1 + 2 + 4 + 8 + 12 GPUs) × 3 repeats = 40.5 GPU-hours on 1, 1, 1, 2 and 3
  // nodes: 0.5 × 8 × 3 = 12 node-hours.
  ShellOutput table = run("plan '" + study + "' --results-dir /nonexistent");
  CAPTURE(table.text);
  REQUIRE(table.exit_code == 0);
  CHECK(table.text.find("total: 15 runs, 12.00 node-hours, 40.50 GPU-hours requested") !=
        std::string::npos);
  CHECK(table.text.find("no estimate: no earlier measured run") != std::string::npos);
  nlohmann::json json = nlohmann::json::parse(run("plan '" + study + "' --format json").text);
  CHECK(json["totals"]["gpu_hours_requested"].get<double>() == doctest::Approx(40.5));
  CHECK(json["totals"]["node_hours_requested"].get<double>() == doctest::Approx(12));
}

TEST_CASE("validate: 0 when every study is valid, 1 with every error otherwise") {
  std::string source = env("SCALESTUDY_SOURCE_DIR");
  ShellOutput ok = run("validate '" + source + "/studies/quickstart.yaml' '" + source +
                       "/studies/resnet18-cifar10-strong.yaml'");
  CHECK(ok.exit_code == 0);
  CHECK(ok.text.find("resnet18-cifar10-strong.yaml: ok (15 runs)") != std::string::npos);

  std::string bad = source + "/tests/study/bad/malformed-time.yaml";
  ShellOutput failed = run("validate '" + source + "/studies/quickstart.yaml' '" + bad + "'", true);
  CHECK(failed.exit_code == 1);
  CHECK(failed.text.find(bad + ":4:9: field 'slurm.time'") != std::string::npos);
}

TEST_CASE("the python-ddp example studies validate: 2 runs each") {
  std::string examples = env("SCALESTUDY_SOURCE_DIR") + "/examples/python-ddp";
  ShellOutput ok =
      run("validate '" + examples + "/patterns.yaml' '" + examples + "/recorded.yaml'");
  CAPTURE(ok.text);
  CHECK(ok.exit_code == 0);
  CHECK(ok.text.find("patterns.yaml: ok (2 runs)") != std::string::npos);
  CHECK(ok.text.find("recorded.yaml: ok (2 runs)") != std::string::npos);
}

TEST_CASE("the python-gpt example study validates: 2 runs") {
  std::string examples = env("SCALESTUDY_SOURCE_DIR") + "/examples/python-gpt";
  ShellOutput ok = run("validate '" + examples + "/recorded.yaml'");
  CAPTURE(ok.text);
  CHECK(ok.exit_code == 0);
  CHECK(ok.text.find("recorded.yaml: ok (2 runs)") != std::string::npos);
}

TEST_CASE("usage errors exit 2, missing files 3, --help 0") {
  CHECK(run("plan").exit_code == 2);
  CHECK(run("plan a.yaml --format xml").exit_code == 2);
  CHECK(run("plan a.yaml --fromat json").exit_code == 2);
  CHECK(run("validate").exit_code == 2);
  CHECK(run("plan /no/such/study.yaml").exit_code == 3);
  ShellOutput help = run("plan --help");
  CHECK(help.exit_code == 0);
  CHECK(help.text.find("--emit-scripts DIR") != std::string::npos);
  CHECK(run("validate --help").exit_code == 0);
}

TEST_CASE("exhaustion inside a command is an error message and exit 1, never an abort") {
  // max_runs lifted so expansion tries to hold a billion runs; the address space is
  // capped so that attempt fails the same way on every machine.
  fs::path study =
      fs::temp_directory_path() / ("scalestudy-huge-" + std::to_string(getpid()) + ".yaml");
  std::string matrix;
  for (const char* axis : {"a", "b", "c"}) {
    matrix += std::string("  ") + axis + ": [";
    for (int i = 0; i < 1000; ++i) matrix += (i ? ", " : "") + std::to_string(i);
    matrix += "]\n";
  }
  std::ofstream(study) << "study: huge\nkind: strong\nscale: [1]\nglobal_batch: 8\n"
                          "workload: {model: small-cnn}\nmax_runs: 1000000000\nmatrix:\n"
                       << matrix;
  ShellOutput limited = run_shell("ulimit -v 1000000; '" + env("SCALESTUDY_BINARY_DIR") +
                                  "/bin/scalestudy' plan '" + study.string() + "' 2>&1");
  fs::remove(study);
  CAPTURE(limited.text);
  CHECK(limited.exit_code == 1);
  CHECK(limited.text.find("scalestudy plan: out of memory") != std::string::npos);
}

}  // namespace
