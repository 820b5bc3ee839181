// Training scripts as they are (tests/study/any_script/, none changed for scalestudy), each
// a strong study at 1 and 2 CPU ranks through `scalestudy run` on the local executor: a
// configurator-style script (--key=value, its own out_dir in ${run_dir}) measured by the
// step time it prints; a Hydra application (hydra-core from .deps/python-venv,
// scripts/python-venv.sh) driven by overrides with a nested and a + key, measured by the
// JSON lines it writes; a trainer writing only a CSV and a JSON document, with --no-flag
// switches; a trainer reading a TOML file the study renders per run (workload.files),
// reported in tokens/s. Each report gives throughput and efficiency at both scales. Plus
// the issue's study of a script printing only its step time. A few seconds in all.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "orchestrator/common/process_runner.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

fs::path scripts_dir() {
  return fs::path(source_dir()) / "tests/study/any_script";
}

// `scalestudy ARGS...` run from the scripts' folder (the studies name them relatively).
common::ProcessResult run_in_scripts_dir(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh",
                                   "-c",
                                   "cd \"$1\" && shift && exec \"$@\"",
                                   "sh",
                                   scripts_dir().string(),
                                   binary_dir() + "/scalestudy"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = common::run_process({argv, {}, 120'000});
  REQUIRE(result);
  return *result;
}

struct StudyRun {
  nlohmann::json report;
  fs::path runs_dir;  // results/<study>/runs
};

// Runs `study_file` into a fresh results folder, and reads its report as JSON.
StudyRun run_and_report(const std::string& study_file, const std::string& study_name) {
  const std::string results = scratch_dir("any_script_" + study_name).string();
  auto ran = run_in_scripts_dir({"run", study_file, "--scheduler", "local", "--results-dir",
                                 results, "--poll-interval", "1", "--no-plots", "--format", "md"});
  INFO(ran.stdout_text.substr(0, 4000) << ran.stderr_text.substr(0, 4000));
  REQUIRE(ran.exit_code == 0);
  auto report = run_in_scripts_dir(
      {"report", study_name, "--results-dir", results, "--format", "json", "--no-plots"});
  INFO(report.stderr_text);
  REQUIRE(report.exit_code == 0);
  return {nlohmann::json::parse(report.stdout_text), fs::path(results) / study_name / "runs"};
}

// Both points measured, each with a throughput and an efficiency; the baseline's is 1.
void check_scaling(const nlohmann::json& report) {
  CAPTURE(report.dump(1).substr(0, 3000));
  REQUIRE(report["points"].size() == 2);
  for (const auto& point : report["points"]) {
    CHECK(point["throughput_samples_per_s"]["count"] == 1);
    CHECK(point["throughput_samples_per_s"]["median"].get<double>() > 0);
    REQUIRE(point["efficiency"].is_number());
    CHECK(point["efficiency"].get<double>() > 0);
  }
  CHECK(report["points"][0]["efficiency"].get<double>() == doctest::Approx(1.0));
}

bool has_warning(const nlohmann::json& report, const std::string& text) {
  for (const auto& warning : report["warnings"]) {
    if (warning.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a configurator-style script: --key=value, its own out_dir, a derived throughput") {
  StudyRun study = run_and_report("configurator.yaml", "any-configurator");
  check_scaling(study.report);
  CHECK(has_warning(study.report, "2 run(s) printed a step time but no throughput"));
  // The script wrote into the folder its out_dir flag named: the run's own.
  int configs = 0;
  for (const auto& run : fs::recursive_directory_iterator(study.runs_dir)) {
    if (run.path().filename() == "config.txt") {
      CHECK(run.path().parent_path().filename() == "out");
      ++configs;
    }
  }
  CHECK(configs == 2);
}

TEST_CASE("a Hydra application: nested and + overrides, measured by its JSON lines") {
  const fs::path python = fs::path(source_dir()) / ".deps/python-venv/bin/python";
  auto probe = common::run_process({{python.string(), "-c", "import hydra"}, {}, 60'000});
  if (!probe || probe->exit_code != 0) {
    SKIP_UNLESS_INSTALLED("no hydra-core in .deps/python-venv (bash scripts/python-venv.sh)");
  }
  StudyRun study = run_and_report("hydra.yaml", "any-hydra");
  check_scaling(study.report);
  int resolved_files = 0;
  for (const auto& run : fs::recursive_directory_iterator(study.runs_dir)) {
    if (run.path().filename() != "resolved.yaml") continue;
    ++resolved_files;
    const std::string resolved = read_file(run.path().string());
    CHECK(resolved.find("n_layer: 2") != std::string::npos);
    CHECK(resolved.find("seed: 3") != std::string::npos);
  }
  CHECK(resolved_files == 2);
}

TEST_CASE("a trainer writing only a CSV and a JSON document, with --no-flag switches") {
  StudyRun study = run_and_report("files_only.yaml", "any-files");
  check_scaling(study.report);
  CHECK_FALSE(has_warning(study.report, "printed a step time"));  // it wrote its throughput
}

TEST_CASE("a trainer reading a TOML file the study renders per run, reported in tokens/s") {
  StudyRun study = run_and_report("toml.yaml", "any-toml");
  check_scaling(study.report);
  CHECK(study.report["settings"]["throughput_unit"] == "tokens");
  CHECK_FALSE(has_warning(study.report, "recorded no tokens_per_sample"));
  int rendered = 0;
  for (const auto& file : fs::recursive_directory_iterator(study.runs_dir)) {
    if (file.path().filename() != "run.toml") continue;
    ++rendered;
    const std::string text = read_file(file.path().string());
    CHECK(text.find("description = \"batch ") != std::string::npos);
    CHECK(text.find(R"(\"quoted\" \\ at )") != std::string::npos);  // escaped for TOML
    CHECK(text.find("folder = \"" + file.path().parent_path().string() + "/metrics\"") !=
          std::string::npos);
  }
  CHECK(rendered == 2);
}

TEST_CASE("a step time alone gives samples/s from the global batch; no figure at all is '-'") {
  const fs::path dir = scratch_dir("any_script_step_time");
  const std::string study = (dir / "step.yaml").string();
  std::ofstream(study) << "study: step-only\n"
                          "kind: strong\n"
                          "workload:\n"
                          "  binary: /bin/sh\n"
                          "  args: ['-c', 'echo \"iter 1: time 100.0ms\"']\n"
                          "  run_flags: false\n"
                          "scale: [1, 2]\n"
                          "global_batch: 32\n"
                          "metrics:\n"
                          "  step_time: {pattern: 'time ([0-9.]+)ms', unit: ms, role: step_time}\n"
                          "  loss: {pattern: 'iter ([0-9]+)'}\n";
  auto ran = run_cli({"run", study, "--scheduler", "local", "--results-dir", (dir / "r").string(),
                      "--poll-interval", "1", "--no-plots", "--format", "md"});
  INFO(ran.stdout_text << ran.stderr_text);
  REQUIRE(ran.exit_code == 0);
  auto report = run_cli({"report", "step-only", "--results-dir", (dir / "r").string(), "--format",
                         "json", "--no-plots"});
  REQUIRE(report.exit_code == 0);
  const auto json = nlohmann::json::parse(report.stdout_text);
  REQUIRE(json["points"].size() == 2);
  CHECK(json["points"][0]["throughput_samples_per_s"]["median"].get<double>() ==
        doctest::Approx(320));  // 32 samples per 100 ms step
  CHECK(json["points"][1]["speedup"].get<double>() == doctest::Approx(1.0));
  CHECK(json["points"][1]["efficiency"].get<double>() == doctest::Approx(0.5));
  CHECK(has_warning(json, "derived as global batch / step time"));

  // The same script measured by a figure that is no throughput and no time: nothing to
  // derive, so '-' and the reason, never 0.000 samples/s, speedup 0.00, efficiency 0.0%.
  std::ofstream(study) << "study: loss-only\nkind: strong\nworkload:\n  binary: /bin/sh\n"
                          "  args: ['-c', 'echo \"iter 1: time 100.0ms\"']\n  run_flags: false\n"
                          "scale: [1, 2]\nglobal_batch: 32\n"
                          "metrics:\n  loss: {pattern: 'iter ([0-9]+)', role: loss}\n";
  ran = run_cli({"run", study, "--scheduler", "local", "--results-dir", (dir / "r").string(),
                 "--poll-interval", "1", "--no-plots", "--format", "md"});
  REQUIRE(ran.exit_code == 0);
  CHECK(ran.stdout_text.find("0.000") == std::string::npos);
  CHECK(ran.stdout_text.find("| 1 | 1 | 32 | 32 | - |") != std::string::npos);
  CHECK(ran.stdout_text.find("measured no throughput and no step time") != std::string::npos);
}
