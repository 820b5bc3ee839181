// The workload binaries describe their flags (--describe-flags json), the description
// holds (every default passes its own rule), and `scalestudy plan` / `validate` refuse a
// study whose parameters the workload would refuse, at the line and column of the value,
// while a program that cannot describe itself is passed through with a note.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/study/workload_flags.hpp"
#include "tests/support/shell_output.hpp"

namespace {

namespace fs = std::filesystem;

using scalestudy::testing::run_shell_merged;
using scalestudy::testing::ShellOutput;

std::string bin_dir() {
  const char* dir = std::getenv("SCALESTUDY_BINARY_DIR");
  REQUIRE(dir != nullptr);
  return std::string(dir) + "/bin";
}

struct StudyFile {
  fs::path path;
  explicit StudyFile(const std::string& yaml) {
    path = fs::temp_directory_path() / ("scalestudy-flags-" + std::to_string(getpid()) + ".yaml");
    std::ofstream(path) << yaml;
  }
  ~StudyFile() { fs::remove(path); }
};

}  // namespace

TEST_CASE("every workload describes its flags, and every default passes its rule") {
  for (const char* binary : {"scalestudy-train", "scalestudy-ddpm", "scalestudy-allreduce"}) {
    CAPTURE(binary);
    ShellOutput described = run_shell_merged(bin_dir() + "/" + binary + " --describe-flags json");
    REQUIRE(described.exit_code == 0);
    auto flags = scalestudy::parse_workload_flags_json(described.text);
    REQUIRE_MESSAGE(flags.is_ok(), flags.status().message());
    CHECK(flags->rules.count("run-id") == 1);
    auto document = nlohmann::json::parse(described.text);
    for (const auto& flag : document["flags"]) {
      const std::string name = flag["name"].get<std::string>();
      auto problem = flags->rules.at(name).problem_with(flag["default"].get<std::string>());
      CHECK_MESSAGE(!problem, binary << " --" << name << ": " << problem.value_or(""));
    }
  }
  ShellOutput train = run_shell_merged(bin_dir() + "/scalestudy-train --describe-flags json");
  auto flags = scalestudy::parse_workload_flags_json(train.text);
  REQUIRE(flags.is_ok());
  CHECK(flags->rules.at("epochs").type == scalestudy::FlagRule::Type::kInteger);
  CHECK(flags->rules.at("precision").type == scalestudy::FlagRule::Type::kChoice);
}

TEST_CASE("a value the description refuses, the workload refuses too") {
  ShellOutput described = run_shell_merged(bin_dir() + "/scalestudy-train --describe-flags json");
  auto flags = scalestudy::parse_workload_flags_json(described.text);
  REQUIRE(flags.is_ok());
  CHECK(flags->rules.at("epochs").problem_with("-2").has_value());
  const fs::path out_dir = fs::temp_directory_path() / "scalestudy-flags-refused";
  ShellOutput refused =
      run_shell_merged(bin_dir() + "/scalestudy-train --epochs -2 --out-dir " + out_dir.string());
  CHECK(refused.exit_code != 0);
  CHECK(refused.text.find("--epochs must be >= 1") != std::string::npos);
  fs::remove_all(out_dir);
}

TEST_CASE("plan and validate refuse bad workload parameters before anything is written") {
  StudyFile study(
      "study: badflags\nkind: strong\nscale: [1]\nglobal_batch: 8\nworkload:\n"
      "  epochs: -2\n  steps_per_epoch: -100\n  model: small-cnn\n");
  for (const char* command : {"plan", "validate"}) {
    CAPTURE(command);
    ShellOutput output =
        run_shell_merged(bin_dir() + "/scalestudy " + command + " '" + study.path.string() + "'");
    CHECK(output.exit_code == 1);
    CHECK(output.text.find(study.path.string() + ":6:11: field 'workload.epochs': --epochs: "
                                                 "expected an integer >= 1, got '-2'") !=
          std::string::npos);
    CHECK(output.text.find(study.path.string() + ":7:20: field 'workload.steps_per_epoch'") !=
          std::string::npos);
  }
  fs::path results =
      fs::temp_directory_path() / ("scalestudy-flags-results-" + std::to_string(getpid()));
  ShellOutput submit =
      run_shell_merged(bin_dir() + "/scalestudy submit '" + study.path.string() +
                       "' --scheduler local --results-dir '" + results.string() + "'");
  CHECK(submit.exit_code == 1);
  CHECK(submit.text.find("field 'workload.epochs'") != std::string::npos);
  CHECK_FALSE(fs::exists(results / "badflags.sqlite"));
  fs::remove_all(results);
}

TEST_CASE("a program that cannot describe itself is passed through with a note") {
  fs::path script = fs::temp_directory_path() / ("scalestudy-own-" + std::to_string(getpid()));
  fs::path started = script.string() + ".started";
  // Were it started by the check, it would leave a file behind.
  std::ofstream(script) << "#!/bin/sh\ntouch '" << started.string() << "'\n";
  fs::permissions(script, fs::perms::owner_all);
  StudyFile study(
      "study: ownscript\nkind: strong\nscale: [1]\nglobal_batch: 8\nworkload:\n"
      "  binary: " +
      script.string() + "\n  anything: -2\n");
  ShellOutput output =
      run_shell_merged(bin_dir() + "/scalestudy plan '" + study.path.string() + "'");
  CHECK(output.exit_code == 0);
  CHECK(output.text.find("note: " + script.string() + ": parameters passed unchecked") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(started));
  fs::remove(script);
}
