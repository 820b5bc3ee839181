#include "orchestrator/campaign/job_directory.hpp"

#include <doctest/doctest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/skip.hpp"

using namespace scalestudy::campaign;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const char* name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("a job directory for the submitting user is only created") {
  fs::path dir = fresh("scalestudy_job_dir_self") / "runs" / "a";
  REQUIRE(prepare_job_directory(dir.string(), "").is_ok());
  CHECK(fs::is_directory(dir));
}

TEST_CASE("a job directory for another user is handed to it (root) or checked (others)") {
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) {
    SKIP_UNLESS_INSTALLED("no user nobody");
  }
  fs::path dir = fresh("scalestudy_job_dir_other") / "runs" / "a";
  auto prepared = prepare_job_directory(dir.string(), "nobody");
  struct stat info {};
  REQUIRE(stat(dir.c_str(), &info) == 0);
  if (geteuid() == 0) {
    REQUIRE(prepared.is_ok());
    CHECK(info.st_uid == nobody->pw_uid);
    CHECK(info.st_gid == nobody->pw_gid);
  } else {
    // Created 0755 by us: nobody may not write it, and the error says what to change.
    REQUIRE_FALSE(prepared.is_ok());
    CHECK(prepared.message().find("not writable by nobody") != std::string::npos);
  }
}

TEST_CASE("a job user unknown here is refused by name") {
  fs::path dir = fresh("scalestudy_job_dir_unknown");
  auto prepared = prepare_job_directory(dir.string(), "no-such-user-x9");
  REQUIRE_FALSE(prepared.is_ok());
  CHECK(prepared.message().find("'no-such-user-x9'") != std::string::npos);
}
