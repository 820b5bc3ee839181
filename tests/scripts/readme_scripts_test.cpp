// scripts/quickstart.sh and scripts/test.sh, run for real (cmake, ninja, ctest) on a tiny
// stand-in project that has the same option and target names as scalestudy but builds in
// a second: quickstart must leave the build folder able to run the tests, the test
// command must fail when no test ran, and it must end by listing what skipped.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/shell_output.hpp"

namespace {

namespace fs = std::filesystem;

using scalestudy::testing::run_shell_merged;
using scalestudy::testing::ShellOutput;

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  REQUIRE(out.good());
}

// The stand-in: bin/scalestudy prints its arguments, the workloads are empty targets, and
// with SCALESTUDY_TESTS (default ON, as in the real project) `registered_tests` tests that
// pass, and `skipping_tests` that print a reason and exit 77 (CTest: skipped).
std::string stand_in_cmakelists(int registered_tests, int skipping_tests = 0) {
  std::string text =
      "cmake_minimum_required(VERSION 3.22)\n"
      "project(standin LANGUAGES NONE)\n"
      "option(SCALESTUDY_TESTS \"tests\" ON)\n"
      "file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/bin)\n"
      "add_custom_target(scalestudy ALL COMMAND ${CMAKE_COMMAND} -E copy "
      "${PROJECT_SOURCE_DIR}/fake-cli ${PROJECT_BINARY_DIR}/bin/scalestudy)\n"
      "add_custom_target(scalestudy-launch)\n"
      "add_custom_target(scalestudy-train)\n"
      "if(SCALESTUDY_TESTS)\n"
      "  enable_testing()\n";
  for (int i = 0; i < registered_tests; ++i)
    text += "  add_test(NAME standin_test_" + std::to_string(i) + " COMMAND true)\n";
  for (int i = 0; i < skipping_tests; ++i) {
    std::string name = "standin_skip_" + std::to_string(i);
    text += "  add_test(NAME " + name + " COMMAND sh -c \"echo 'skipped: no widget " +
            std::to_string(i) + "'; exit 77\")\n  set_tests_properties(" + name +
            " PROPERTIES SKIP_RETURN_CODE 77)\n";
  }
  return text + "endif()\n";
}

struct StandInProject {
  fs::path root;

  explicit StandInProject(int registered_tests, int skipping_tests = 0) {
    root = fs::temp_directory_path() / ("scalestudy-readme-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "scripts");
    fs::create_directories(root / "tests" / "support");
    fs::path source = std::getenv("SCALESTUDY_SOURCE_DIR");
    for (const char* script : {"quickstart.sh", "test.sh"})
      fs::copy_file(source / "scripts" / script, root / "scripts" / script);
    fs::copy_file(source / "tests" / "support" / "list_skipped_tests.py",
                  root / "tests" / "support" / "list_skipped_tests.py");
    fs::create_directories(root / ".ci");
    fs::copy_file(source / ".ci" / "run", root / ".ci" / "run");
    write_file(root / "scripts" / "install-deps.sh", "echo \"install-deps: CI=${CI:-unset}\"\n");
    // The CUDA build's suites: one test that every one of test.sh's filters selects.
    write_file(root / "scripts" / "build-cuda.sh",
               "echo stand-in CUDA build\nmkdir -p build-cuda\n"
               "printf 'add_test(gpu_standin true)\\nset_tests_properties(gpu_standin "
               "PROPERTIES LABELS \"unit;kit\")\\n' >build-cuda/CTestTestfile.cmake\n");
    write_file(root / "fake-cli", "#!/bin/sh\necho \"fake scalestudy $*\"\n");
    fs::permissions(root / "fake-cli", fs::perms::owner_all, fs::perm_options::add);
    write_file(root / "CMakeLists.txt", stand_in_cmakelists(registered_tests, skipping_tests));
  }
  ~StandInProject() { fs::remove_all(root); }

  ShellOutput script(const std::string& name) const {
    return run_shell_merged("cd '" + root.string() + "' && bash scripts/" + name);
  }
};

}  // namespace

TEST_CASE("test.sh after quickstart.sh in the same build folder runs the tests") {
  StandInProject project(2);
  ShellOutput quickstart = project.script("quickstart.sh");
  INFO(quickstart.text);
  REQUIRE(quickstart.exit_code == 0);
  CHECK(quickstart.text.find("fake scalestudy run studies/quickstart.yaml") != std::string::npos);

  ShellOutput test = project.script("test.sh");
  INFO(test.text);
  CHECK(test.exit_code == 0);
  CHECK(test.text.find("tests passed, 0 tests failed out of 2") != std::string::npos);
}

TEST_CASE("test.sh ends by listing the skipped tests with their reasons") {
  StandInProject project(1, 2);
  ShellOutput test = project.script("test.sh");
  INFO(test.text);
  CHECK(test.exit_code == 0);
  CHECK(test.text.find("skips: 2 test(s) counted as skipped by CTest") != std::string::npos);
  CHECK(test.text.find("  standin_skip_1: skipped\n      no widget 1\n") != std::string::npos);
}

TEST_CASE("a failed CUDA build fails test.sh even when every test passed") {
  StandInProject project(1);
  write_file(project.root / "scripts" / "build-cuda.sh", "echo link error >&2; exit 1\n");
  ShellOutput test = project.script("test.sh");
  INFO(test.text);
  CHECK(test.text.find("tests passed, 0 tests failed out of 1") != std::string::npos);
  CHECK(test.text.find("build-cuda: exit 1") != std::string::npos);
  CHECK(test.exit_code == 1);
}

TEST_CASE("a CUDA build that registered no tests fails test.sh") {
  StandInProject project(1);
  write_file(project.root / "scripts" / "build-cuda.sh", "mkdir -p build-cuda\n");
  ShellOutput test = project.script("test.sh");
  INFO(test.text);
  CHECK(test.text.find("tests passed, 0 tests failed out of 1") != std::string::npos);
  CHECK(test.text.find("build-cuda has no CTestTestfile.cmake") != std::string::npos);
  CHECK(test.exit_code == 1);
}

TEST_CASE(".ci/run runs test.sh with CI=true whatever the runner exports") {
  StandInProject project(1);
  ShellOutput test =
      run_shell_merged("cd '" + project.root.string() + "' && env -u CI bash .ci/run");
  INFO(test.text);
  CHECK(test.exit_code == 0);
  CHECK(test.text.find("install-deps: CI=true") != std::string::npos);
  CHECK(test.text.find("gpu_standin") != std::string::npos);  // the CUDA build's suites ran
}

TEST_CASE("test.sh turns tests back on in a build folder configured without them") {
  StandInProject project(1);
  ShellOutput off =
      run_shell_merged("cmake -S '" + project.root.string() + "' -B '" +
                       (project.root / "build").string() + "' -G Ninja -DSCALESTUDY_TESTS=OFF");
  REQUIRE(off.exit_code == 0);
  ShellOutput test = project.script("test.sh");
  INFO(test.text);
  CHECK(test.exit_code == 0);
  CHECK(test.text.find("out of 1") != std::string::npos);
}

TEST_CASE("test.sh fails when no test ran") {
  StandInProject project(0);
  ShellOutput test = project.script("test.sh");
  INFO(test.text);
  CHECK(test.exit_code != 0);
  CHECK(test.text.find("No tests were found") != std::string::npos);
}
