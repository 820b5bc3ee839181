#include "orchestrator/campaign/job_directory.hpp"

#include <doctest/doctest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/campaign/attempt_failure.hpp"
#include "orchestrator/sched/job_script_preparation.hpp"
#include "orchestrator/sched/packed_run_marks.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy::campaign;
using scalestudy::Status;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const char* name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return dir;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

scalestudy::RunSpec one_rank_run() {
  scalestudy::RunSpec spec;
  spec.study = "s";
  spec.run_id = "0123456789abcdef";
  spec.workload = "/bin/true";
  spec.global_batch = spec.per_gpu_batch = 8;
  return spec;
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
    // Created 0750 by us: nobody may not write it, and the error says what to change.
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

TEST_CASE(
    "a new job directory is 0750 whatever the umask; a symlink or another's folder is refused") {
  const fs::path root = fresh("scalestudy_job_dir_modes");
  const mode_t old_umask = umask(0);
  auto made = prepare_job_directory((root / "runs" / "a").string(), "");
  umask(old_umask);
  REQUIRE(made.is_ok());
  CHECK((fs::status(root / "runs" / "a").permissions() & fs::perms::all) ==
        (fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec));

  fs::create_directories(root / "elsewhere");
  fs::create_symlink(root / "elsewhere", root / "runs" / "b");
  auto linked = prepare_job_directory((root / "runs" / "b").string(), "");
  REQUIRE_FALSE(linked.is_ok());
  CHECK(linked.message().find("is a symlink") != std::string::npos);

  const passwd* nobody = getpwnam("nobody");
  if (geteuid() != 0 || nobody == nullptr) return;  // only root can make a folder another's
  fs::create_directories(root / "runs" / "c");
  REQUIRE(chown((root / "runs" / "c").c_str(), nobody->pw_uid, nobody->pw_gid) == 0);
  auto foreign = prepare_job_directory((root / "runs" / "c").string(), "");
  REQUIRE_FALSE(foreign.is_ok());
  CHECK(foreign.message().find("belongs to nobody") != std::string::npos);
  // ... unless the jobs run as its owner, who was handed it by an earlier submit.
  CHECK(prepare_job_directory((root / "runs" / "c").string(), "nobody").is_ok());
}

TEST_CASE("root never writes through the job user's symlinks in a handed-over run folder") {
  const passwd* nobody = getpwnam("nobody");
  if (geteuid() != 0 || nobody == nullptr) {
    SKIP_UNLESS_INSTALLED("needs root and the user nobody to hand a folder over");
  }
  const fs::path root = fresh("scalestudy_job_dir_symlinks");
  const fs::path dir = root / "runs" / "a";
  REQUIRE(prepare_job_directory(dir.string(), "nobody").is_ok());
  // What the job's user could leave there: the script's and a mark's names pointing at a
  // file only root may write.
  const fs::path victim = root / "victim";
  std::ofstream(victim) << "untouched\n";
  fs::create_symlink(victim, dir / "job.sbatch");
  fs::create_symlink(victim, dir / "packed-77.recorded");

  scalestudy::sched::RunPreparation preparation;
  preparation.out_dir = dir.string();
  preparation.bin_dir = "/opt/scalestudy/bin";
  auto prepared = scalestudy::sched::prepare_job_script(one_rank_run(), preparation);
  REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
  scalestudy::sched::mark_packed_run_recorded(dir.string(), "77+0123456789abcdef");
  CHECK(read_all(victim) == "untouched\n");
  CHECK(fs::is_regular_file(fs::symlink_status(dir / "job.sbatch")));
  CHECK(read_all(dir / "job.sbatch").find("#!/bin/bash") == 0);
  CHECK((fs::status(dir / "job.sbatch").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
         fs::perms::others_read));
}

TEST_CASE("a folder above the job directory that the job user cannot enter is refused by name") {
  if (getpwnam("nobody") == nullptr) {
    SKIP_UNLESS_INSTALLED("no user nobody");
  }
  // As `mktemp -d` makes it: 0700, ours.
  fs::path closed = fresh("scalestudy_job_dir_closed");
  fs::create_directories(closed);
  fs::permissions(closed, fs::perms::owner_all);
  auto prepared = prepare_job_directory((closed / "results" / "runs" / "a").string(), "nobody");
  REQUIRE_FALSE(prepared.is_ok());
  CHECK(prepared.message().find(closed.string() + ": nobody, the user the jobs run as, cannot "
                                                  "enter it (mode 0700)") != std::string::npos);
  CHECK(prepared.message().find("chmod o+x " + closed.string()) != std::string::npos);
  fs::permissions(closed, fs::perms::owner_all | fs::perms::others_exec);
  CHECK(prepare_job_directory((closed / "results" / "runs" / "a").string(), "nobody").is_ok() ==
        (geteuid() == 0));
}

TEST_CASE(
    "an allocation that failed before its first step names the folder its user cannot enter") {
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr || geteuid() != 0) {
    SKIP_NOT_APPLICABLE("needs root and a user nobody (run folders are handed over as root)");
  }
  fs::path results = fresh("scalestudy_job_dir_closed_later");
  fs::create_directories(results);
  fs::permissions(results, fs::perms::owner_all | fs::perms::others_exec);
  const std::string run_dir = (results / "runs" / "a").string();
  REQUIRE(prepare_job_directory(run_dir, "nobody").is_ok());
  CHECK(check_reachable_by_owner(run_dir).is_ok());
  scalestudy::common::JobStatus failed;
  failed.state = scalestudy::common::JobState::kFailed;
  failed.exit_code = scalestudy::common::kSlurmSetupExitCode;
  CHECK(classify_attempt(failed, run_dir, "62", 1).evidence.find("now") == std::string::npos);

  // Closed after the submit checked it: the node could not open the job's output files.
  fs::permissions(results, fs::perms::owner_all);
  const Status closed = check_reachable_by_owner(run_dir);
  REQUIRE_FALSE(closed.is_ok());
  CHECK(closed.message().find(results.string() + ": nobody, the user the jobs run as, cannot "
                                                 "enter it (mode 0700)") != std::string::npos);
  const auto failure = classify_attempt(failed, run_dir, "62", 1);
  CHECK(failure.kind == scalestudy::common::FailureClass::kSetup);
  CHECK(failure.evidence.find("sacct 0:53") != std::string::npos);
  CHECK(failure.evidence.find("; now " + results.string() + ": nobody") != std::string::npos);
  // A folder root keeps is not judged: root's jobs enter anything.
  CHECK(check_reachable_by_owner(results.string()).is_ok());
}
