// The skip rules of tests/support/skip.hpp, on a probe suite (skip_probe.cpp): a suite all
// of whose cases skipped exits 77 (CTest: skipped); a missing prerequisite fails where every
// prerequisite must be present (CI=true, or root on Debian) and skips elsewhere; a case that
// cannot apply here always skips.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/support/shell_output.hpp"

namespace {

using scalestudy::testing::ShellOutput;

// Runs the probe with `environment` (VAR=value words) and doctest's `filter`.
ShellOutput probe(const std::string& environment, const std::string& filter) {
  std::string command = "env -u CI " + environment + " '" +
                        std::string(std::getenv("SCALESTUDY_BINARY_DIR")) +
                        "/bin/skip_probe' --force-colors=0 " + filter + " 2>&1";
  return scalestudy::testing::run_shell(command);
}

// Not root, so nothing marks this as a place where every prerequisite must be present.
std::string as_nobody() {
  return geteuid() == 0 ? "setpriv --reuid=nobody --regid=nogroup --clear-groups" : "";
}

}  // namespace

TEST_CASE("a suite whose every case cannot apply here exits 77, also under CI") {
  ShellOutput outcome = probe("CI=true", "-tc='probe: not applicable'");
  INFO(outcome.text);
  CHECK(outcome.exit_code == 77);
  CHECK(outcome.text.find("skipped: no widget on this machine") != std::string::npos);
}

TEST_CASE("a missing prerequisite fails under CI=true, with the reason") {
  ShellOutput outcome = probe("CI=true", "-tc='probe: prerequisite'");
  INFO(outcome.text);
  CHECK(outcome.exit_code == 1);
  CHECK(outcome.text.find("not skipped, since every prerequisite must be installed here") !=
        std::string::npos);
  CHECK(outcome.text.find("the widget package is missing") != std::string::npos);
}

TEST_CASE("a missing prerequisite fails as root on Debian, skips elsewhere") {
  if (geteuid() == 0) {
    ShellOutput as_root = probe("", "-tc='probe: prerequisite'");
    INFO(as_root.text);
    CHECK(as_root.exit_code == (access("/etc/debian_version", F_OK) == 0 ? 1 : 77));
  }
  ShellOutput outcome = probe(as_nobody(), "-tc='probe: prerequisite'");
  INFO(outcome.text);
  CHECK(outcome.exit_code == 77);
  CHECK(outcome.text.find("skipped: the widget package is missing") != std::string::npos);
}

TEST_CASE("a suite with a passing case passes, its skips printed") {
  ShellOutput outcome = probe(as_nobody(), "");
  INFO(outcome.text);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.text.find("skipped: no widget on this machine") != std::string::npos);
  CHECK(outcome.text.find("skipped: the widget package is missing") != std::string::npos);
}
