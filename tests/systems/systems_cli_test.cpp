// `scalestudy systems`: list, show (as written and resolved), check and detect, with their
// exit codes, on the shipped systems and on a user's folder ($SCALESTUDY_SYSTEMS).
#include <doctest/doctest.h>

#include "tests/support/shell_output.hpp"
#include "tests/systems/system_files.hpp"

namespace scalestudy::testing {
namespace {

ShellOutput systems(const SystemFiles& files, const std::string& arguments) {
  return run_shell_merged(
      "SCALESTUDY_SYSTEMS='" + files.dir.string() + "' XDG_CONFIG_HOME=/nonexistent '" +
      std::string(std::getenv("SCALESTUDY_BINARY_DIR")) + "/bin/scalestudy' systems " + arguments);
}

bool has(const ShellOutput& output, const std::string& text) {
  return output.text.find(text) != std::string::npos;
}

TEST_CASE("systems list and check: the shipped systems, and a user's broken one") {
  SystemFiles files("cli");
  ShellOutput listed = systems(files, "list");
  CAPTURE(listed.text);
  CHECK(listed.exit_code == 0);
  CHECK(has(listed, "testcluster-small      slurm small"));
  CHECK(has(listed,
            "example-h100           slurm gpu-h100         4 GPU, 64 cores  32        debug"));
  CHECK(systems(files, "check").exit_code == 0);

  files.write("broken", "scheduler: {kind: slurm}\nlimits: {max_nodes: none}\n");
  ShellOutput checked = systems(files, "check");
  CAPTURE(checked.text);
  CHECK(checked.exit_code == 1);
  CHECK(has(checked, files.dir.string() + "/broken.yaml:2:21: field 'limits.max_nodes'"));
  CHECK(has(checked, "ok " + SystemFiles::shipped_dir() + "/local.yaml"));
  CHECK(systems(files, "list").exit_code == 1);
  CHECK(systems(files, "check '" + SystemFiles::shipped_dir() + "/example-h100.yaml'").exit_code ==
        0);
}

TEST_CASE("systems show: as written, resolved with its hash, and the errors' exit codes") {
  SystemFiles files("show");
  ShellOutput written = systems(files, "show testcluster-small");
  CAPTURE(written.text);
  CHECK(written.exit_code == 0);
  CHECK(has(written, "extends: testcluster"));
  ShellOutput resolved = systems(files, "show testcluster-small --resolved");
  CAPTURE(resolved.text);
  CHECK(resolved.exit_code == 0);
  CHECK(has(resolved, "# testcluster-small, hash "));
  CHECK(has(resolved, "cores: 4"));
  CHECK_FALSE(has(resolved, "extends"));
  CHECK(systems(files, "show nowhere").exit_code == 3);
  ShellOutput variant = systems(files, "show example-h100:nope");
  CHECK(variant.exit_code == 1);
  CHECK(has(variant, "has no variant 'nope' (variants: debug)"));
  CHECK(systems(files, "show 'Bad Id'").exit_code == 2);
  CHECK(systems(files, "frobnicate").exit_code == 2);
}

TEST_CASE("systems detect: the matching system, else local") {
  SystemFiles files("detect-cli");
  files.write("site", "scheduler: {kind: slurm}\ndetect: {hostname: 'login[0-9]+'}\n");
  ShellOutput matched = systems(files, "detect --hostname login42");
  CHECK(matched.exit_code == 0);
  CHECK(matched.text == "site\n");
  ShellOutput fallback = systems(files, "detect --hostname laptop");
  CHECK(fallback.exit_code == 0);
  CHECK(has(fallback, "local\n"));
}

}  // namespace
}  // namespace scalestudy::testing
