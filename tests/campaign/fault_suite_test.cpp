// The fault suite (ctest -L faults): the submitter killed with SIGKILL at each named point
// of submit and ingest (SCALESTUDY_FAULT, see orchestrator/common/fault_injection.hpp), one
// rank killed, a full disk, and two submits at once, each followed by a plain rerun. After
// every case the same invariants hold: every run completed exactly once (one COMPLETED
// attempt, one execution of each rank), the study database passes PRAGMA integrity_check,
// every rank database's measurements are in the study database, and no process of the
// study is left running. An unreachable slurmrestd is refused before anything is claimed.
// The workload is the all-reduce benchmark on a few KiB behind a wrapper that counts its
// executions. The SLURM cluster's faults are in tests/sched/slurm_faults_test.cpp.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/core/sqlite.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy;
using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

// Appends "<rank>" to <out-dir>/executions.txt and leaves <out-dir>/rank<R>.pid, sleeps
// $FAULT_HOLD_S seconds (a window to kill it in), then becomes the all-reduce benchmark.
std::string write_counting_workload(const fs::path& dir) {
  const auto path = dir / "counting_allreduce.sh";
  std::ofstream(path) << "#!/bin/sh\nout=\"\"; prev=\"\"\nfor arg in \"$@\"; do\n"
                         "  [ \"$prev\" = --out-dir ] && out=$arg; prev=$arg\ndone\n"
                         "echo \"${RANK:-0}\" >> \"$out/executions.txt\"\n"
                         "echo $$ > \"$out/rank${RANK:-0}.pid\"\n"
                         "sleep \"${FAULT_HOLD_S:-0}\"\n"
                         "exec "
                      << binary_dir() << "/scalestudy-allreduce \"$@\"\n";
  fs::permissions(path, fs::perms::all);
  return path.string();
}

// A study of `scale` runs (one node, up to 2 ranks), at most `max_attempts` each.
std::string write_study(const fs::path& dir, const std::string& name, const std::string& scale,
                        int max_attempts = 2) {
  const std::string path = (dir / (name + ".yaml")).string();
  std::ofstream(path) << "study: " << name
                      << "\nkind: custom\nworkload: {binary: " << write_counting_workload(dir)
                      << ", min_bytes: 1K, max_bytes: 4K, iters: 3, warmup_iters: 1,"
                         " telemetry_interval_ms: 0}\n"
                         "scale: "
                      << scale << "\nslurm: {ranks_per_node: 2}\nmax_attempts: " << max_attempts
                      << "\n";
  return path;
}

std::vector<std::string> submit_args(const std::string& study, const std::string& results) {
  return {"submit", study, "--scheduler", "local", "--results-dir", results, "--max-slots", "2"};
}

int64_t integer(sqlite::Database& db, const std::string& sql,
                std::vector<sqlite::Value> params = {}) {
  auto rows = db.query(sql, params);
  REQUIRE(rows.is_ok());
  REQUIRE(rows->size() == 1);
  return std::get<int64_t>((*rows)[0][0]);
}

// The invariants every case ends with.
void check_invariants(const fs::path& dir, const std::string& study, const std::string& results) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!processes_mentioning(dir.string()).empty() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(processes_mentioning(dir.string()).empty());

  auto db = sqlite::Database::open(results + "/" + study + ".sqlite", sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto integrity = db->query_value("PRAGMA integrity_check");
  REQUIRE(integrity.is_ok());
  CHECK(sqlite::to_string(**integrity) == "ok");
  auto runs = db->query("SELECT run_id, world_size, state, out_dir FROM runs WHERE planned = 1");
  REQUIRE(runs.is_ok());
  REQUIRE_FALSE(runs->empty());
  for (const auto& run : *runs) {
    const std::string run_id = sqlite::to_string(run[0]);
    const int64_t world_size = std::get<int64_t>(run[1]);
    CAPTURE(run_id);
    CHECK(sqlite::to_string(run[2]) == "COMPLETED");
    CHECK(integer(*db, "SELECT COUNT(*) FROM attempts WHERE run_id = ? AND state = 'COMPLETED'",
                  {run_id}) == 1);
    const fs::path out_dir = fs::path(results) / sqlite::to_string(run[3]);
    // Exactly one execution: one line per rank.
    CHECK(count_lines((out_dir / "executions.txt").string()) == world_size);
    for (int64_t rank = 0; rank < world_size; ++rank) {
      CAPTURE(rank);
      auto rank_db =
          sqlite::Database::open((out_dir / ("rank" + std::to_string(rank) + ".sqlite")).string(),
                                 sqlite::OpenMode::kReadOnly);
      REQUIRE(rank_db.is_ok());
      for (const char* table : {"summary", "collectives"}) {
        CAPTURE(table);
        CHECK(integer(
                  *db,
                  std::string("SELECT COUNT(*) FROM m_") + table + " WHERE run_id = ? AND rank = ?",
                  {run_id, rank}) ==
              integer(*rank_db, std::string("SELECT COUNT(*) FROM ") + table));
      }
      CHECK(integer(*db, "SELECT COUNT(*) FROM m_run WHERE run_id = ? AND rank = ?",
                    {run_id, rank}) == 1);
    }
  }
}

// `scalestudy run` with no fault armed: submits what is not done, waits, resubmits failed
// runs while attempts remain, ingests.
void finish_study(const std::string& study_yaml, const std::string& results) {
  ProcessResult ran =
      run_cli({"run", study_yaml, "--scheduler", "local", "--results-dir", results, "--max-slots",
               "2", "--poll-interval", "0.2", "--timeout", "60", "--no-plots"});
  INFO(ran.stdout_text << ran.stderr_text);
  CHECK(ran.exit_code == 0);
}

bool killed_by_sigkill(const ProcessResult& result) {
  return result.exit_code == -1 && result.signal == SIGKILL;
}

}  // namespace

TEST_CASE("a submitter killed at any point of submit: the rerun runs every run exactly once") {
  for (const char* point : {"submit.claimed", "submit.prepared", "submit.recorded",
                            "submit.launched", "submit.finished", "submit.recorded:2"}) {
    const std::string point_name = point;
    CAPTURE(point_name);
    std::string dir_name = point;
    for (char& c : dir_name) c = c == '.' || c == ':' ? '_' : c;
    fs::path dir = scratch_dir("fault_" + dir_name);
    const std::string study = "killed";
    const std::string study_yaml = write_study(dir, study, "[1, 2]");
    const std::string results = (dir / "results").string();
    ProcessResult killed =
        run_cli_with(submit_args(study_yaml, results), {{"SCALESTUDY_FAULT", point}});
    INFO(killed.stdout_text << killed.stderr_text);
    CHECK(killed_by_sigkill(killed));
    finish_study(study_yaml, results);
    check_invariants(dir, study, results);
  }
}

TEST_CASE("an ingest killed inside or after its transaction loses nothing and adds nothing twice") {
  fs::path dir = scratch_dir("fault_ingest");
  const std::string study = "ingestkill";
  const std::string study_yaml = write_study(dir, study, "[1, 2]");
  const std::string results = (dir / "results").string();
  REQUIRE(run_cli(submit_args(study_yaml, results)).exit_code == 0);
  const std::vector<std::string> ingest = {"ingest", study, "--results-dir", results};

  // Killed with one run written and the transaction open: nothing of it stays.
  CHECK(killed_by_sigkill(run_cli_with(ingest, {{"SCALESTUDY_FAULT", "ingest.run_written"}})));
  {
    auto db =
        sqlite::Database::open(results + "/" + study + ".sqlite", sqlite::OpenMode::kReadOnly);
    REQUIRE(db.is_ok());
    auto ingested = db->query("SELECT COUNT(*) FROM sqlite_master WHERE name = 'm_ingest'");
    REQUIRE(ingested.is_ok());
    if (std::get<int64_t>((*ingested)[0][0]) == 1) {
      CHECK(integer(*db, "SELECT COUNT(*) FROM m_ingest") == 0);
    }
  }
  // Killed after the commit: the rerun finds every run unchanged.
  CHECK(killed_by_sigkill(run_cli_with(ingest, {{"SCALESTUDY_FAULT", "ingest.committed"}})));
  ProcessResult again = run_cli(ingest);
  INFO(again.stdout_text << again.stderr_text);
  CHECK(again.exit_code == 0);
  CHECK(again.stdout_text.find("0 runs ingested, 2 unchanged, 0 failed") != std::string::npos);
  check_invariants(dir, study, results);
}

TEST_CASE(
    "a rank killed with SIGKILL fails its attempt, stops its peers, and the retry completes") {
  fs::path dir = scratch_dir("fault_rank_kill");
  const std::string study = "rankkill";
  const std::string study_yaml = write_study(dir, study, "[2]");
  const std::string results = (dir / "results").string();
  ProcessResult first;
  std::thread submitter([&] {
    first = run_cli_with(submit_args(study_yaml, results), {{"FAULT_HOLD_S", "30"}});
  });
  const fs::path runs_dir = fs::path(results) / study / "runs";
  fs::path pid_file;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (pid_file.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!fs::exists(runs_dir)) continue;
    for (const auto& run : fs::directory_iterator(runs_dir)) {
      if (fs::exists(run.path() / "rank1.pid") && fs::file_size(run.path() / "rank1.pid") > 0) {
        pid_file = run.path() / "rank1.pid";
      }
    }
  }
  REQUIRE_FALSE(pid_file.empty());
  pid_t rank1 = std::stoi(read_file(pid_file.string()));
  REQUIRE(kill(rank1, SIGKILL) == 0);
  submitter.join();
  INFO(first.stdout_text << first.stderr_text);
  CHECK(first.exit_code == 0);  // submitted; the run ended without success and may be retried
  CHECK(first.stdout_text.find("killed by signal 9") != std::string::npos);
  // The failed attempt's rank 0 was stopped, not left sleeping; its one line per rank is
  // cleared so the retry's execution is counted alone.
  CHECK(processes_mentioning(dir.string()).empty());
  fs::remove(pid_file.parent_path() / "executions.txt");
  finish_study(study_yaml, results);
  auto db = sqlite::Database::open(results + "/" + study + ".sqlite", sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  CHECK(integer(*db, "SELECT COUNT(*) FROM attempts") == 2);
  CHECK(integer(*db, "SELECT COUNT(*) FROM attempts WHERE state != 'COMPLETED'") == 1);
  check_invariants(dir, study, results);
}

TEST_CASE("a full disk fails the submit cleanly; with space again the rerun completes") {
  if (geteuid() != 0) {
    SKIP_NOT_APPLICABLE("mounting a small tmpfs needs root");
  }
  fs::path dir = scratch_dir("fault_disk_full");
  const std::string study = "diskfull";
  const std::string study_yaml = write_study(dir, study, "[1, 2]");
  const fs::path results = dir / "results";
  fs::create_directories(results);
  if (mount("tmpfs", results.c_str(), "tmpfs", 0, "size=160k") != 0) {
    SKIP_NOT_APPLICABLE("cannot mount a tmpfs here: " << std::strerror(errno));
  }
  ProcessResult full = run_cli(submit_args(study_yaml, results.string()));
  INFO(full.stdout_text << full.stderr_text);
  CHECK(full.exit_code != 0);
  CHECK(full.signal == 0);  // an error, not a crash
  REQUIRE(mount("tmpfs", results.c_str(), "tmpfs", MS_REMOUNT, "size=16m") == 0);
  for (const auto& run : fs::recursive_directory_iterator(results)) {
    if (run.path().filename() == "executions.txt") fs::remove(run.path());
  }
  finish_study(study_yaml, results.string());
  check_invariants(dir, study, results.string());
  umount2(results.c_str(), MNT_DETACH);
}

TEST_CASE("two concurrent submits of one study run every run exactly once") {
  fs::path dir = scratch_dir("fault_concurrent_submit");
  const std::string study = "concurrent";
  const std::string study_yaml = write_study(dir, study, "[1, 2]\nrepeats: 2");
  const std::string results = (dir / "results").string();
  std::vector<std::string> args = submit_args(study_yaml, results);
  args.insert(args.end(), {"--max-parallel", "2"});
  ProcessResult first, second;
  std::thread a([&] { first = run_cli(args); });
  std::thread b([&] { second = run_cli(args); });
  a.join();
  b.join();
  INFO("first: " << first.stdout_text << first.stderr_text);
  INFO("second: " << second.stdout_text << second.stderr_text);
  CHECK(first.exit_code == 0);
  CHECK(second.exit_code == 0);
  finish_study(study_yaml, results);
  auto db = sqlite::Database::open(results + "/" + study + ".sqlite", sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  CHECK(integer(*db, "SELECT COUNT(*) FROM attempts") == integer(*db, "SELECT COUNT(*) FROM runs"));
  check_invariants(dir, study, results);
}

TEST_CASE("an unreachable slurmrestd is refused before anything is claimed: exit 3") {
  fs::path dir = scratch_dir("fault_unreachable_slurmrestd");
  const std::string study_yaml = write_study(dir, "unreachable", "[1]");
  const std::string results = (dir / "results").string();
  const std::map<std::string, std::string> environment = {
      {"SCALESTUDY_SLURMRESTD", "unix:" + (dir / "no-such.sock").string()}};
  for (const char* command : {"submit", "run"}) {
    CAPTURE(command);
    ProcessResult refused = run_cli_with(
        {command, study_yaml, "--scheduler", "slurmrest", "--results-dir", results}, environment);
    INFO(refused.stdout_text << refused.stderr_text);
    CHECK(refused.exit_code == 3);
    CHECK(refused.stderr_text.find("slurmrestd unreachable") != std::string::npos);
    CHECK_FALSE(fs::exists(results + "/unreachable.sqlite"));
  }
}
