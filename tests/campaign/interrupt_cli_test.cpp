// Interrupting `scalestudy run` on the local executor loses nothing (docs/failures.md):
// Ctrl-C (SIGINT to its process group, as a terminal sends it) stops the runs it started,
// records them CANCELLED and plans the others again, with no process of the study left and
// no claim left SUBMITTING; a second Ctrl-C leaves at once, saying what goes on; a
// submitter killed by SIGKILL leaves its run running, and the end its keeper records beside
// it makes the next `status` record it COMPLETED after one attempt, not lost and run again.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/core/sqlite.hpp"
#include "tests/support/cli_test_support.hpp"

using namespace scalestudy;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// A workload that notes its pid and each execution, ignores SIGTERM when asked, and sleeps.
std::string write_sleeper(const fs::path& dir) {
  const fs::path path = dir / "sleeper.sh";
  std::ofstream(path) << R"sh(#!/bin/sh
sleep_s=1; ignore_term=0; tag=x
while [ $# -gt 0 ]; do
  case "$1" in
    --sleep-s) sleep_s=$2; shift ;;
    --ignore-term) ignore_term=$2; shift ;;
    --tag) tag=$2; shift ;;
  esac
  shift
done
[ "$ignore_term" = 1 ] && trap '' TERM
dir=$(dirname "$0")
echo $$ > "$dir/pid.$tag"
echo "$tag" >> "$dir/executions.txt"
sleep "$sleep_s"
)sh";
  fs::permissions(path, fs::perms::all);
  return path.string();
}

// `scalestudy ARGS...` as the leader of a process group of its own, as a shell starts a
// foreground job; its output in dir/out.txt and dir/err.txt.
pid_t start_cli(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> words = {binary_dir() + "/scalestudy"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, (dir / "out.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, (dir / "err.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &files, &attributes, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  return pid;
}

// Whether `predicate` came true within `seconds`.
template <typename Predicate>
bool within(double seconds, Predicate predicate) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return predicate();
}

// The exit status of `pid` if it ends within `seconds`; -1 otherwise (then it is killed).
int exit_within(pid_t pid, double seconds) {
  int status = 0;
  const bool ended = within(seconds, [&] { return waitpid(pid, &status, WNOHANG) == pid; });
  if (!ended) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

pid_t pid_in(const fs::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, command, state;
  return (stat >> pid_field >> command >> state) && state != "Z";
}

std::string states(const fs::path& database) {
  auto db = sqlite::Database::open(database.string(), sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto rows = db->query("SELECT state, attempts FROM runs ORDER BY state, run_id");
  REQUIRE(rows.is_ok());
  std::string text;
  for (const auto& row : *rows) {
    text += sqlite::to_string(row[0]) + "/" + sqlite::to_string(row[1]) + " ";
  }
  return text;
}

}  // namespace

TEST_CASE("Ctrl-C on scalestudy run stops its runs, records them cancelled, releases the rest") {
  const fs::path dir = scratch_dir("interrupt_run");
  fs::create_directories(dir);
  std::ofstream(dir / "study.yaml") << "study: ctrlc\nworkload: {binary: " << write_sleeper(dir)
                                    << ", sleep_s: 60}\nmatrix: {tag: [a, b, c]}\n";
  const pid_t cli = start_cli(dir, {"run", (dir / "study.yaml").string(), "--scheduler", "local",
                                    "--results-dir", (dir / "results").string()});
  fs::path started;
  REQUIRE(within(30, [&] {
    for (const char* tag : {"a", "b", "c"}) {
      if (fs::exists(dir / (std::string("pid.") + tag)))
        started = dir / (std::string("pid.") + tag);
    }
    return !started.empty();
  }));
  const pid_t workload = pid_in(started);
  REQUIRE(workload > 0);
  kill(-cli, SIGINT);
  CHECK(exit_within(cli, 20) == 130);
  CAPTURE(read_file((dir / "err.txt").string()));
  CHECK(read_file((dir / "err.txt").string()).find("interrupted (Ctrl-C)") != std::string::npos);
  CHECK(within(5, [&] { return !alive(workload); }));
  CHECK(processes_mentioning(dir.string()).empty());
  // The started run CANCELLED after its attempt; the two others planned again, no claim.
  CHECK(states(dir / "results" / "ctrlc.sqlite") == "CANCELLED/1 PLANNED/0 PLANNED/0 ");
  CHECK(count_lines((dir / "executions.txt").string()) == 1);
}

TEST_CASE("a second Ctrl-C leaves at once and names the run still stopping") {
  const fs::path dir = scratch_dir("interrupt_twice");
  fs::create_directories(dir);
  std::ofstream(dir / "study.yaml") << "study: twice\nworkload: {binary: " << write_sleeper(dir)
                                    << ", sleep_s: 2, ignore_term: 1}\n";
  const std::string results = (dir / "results").string();
  const pid_t cli = start_cli(dir, {"run", (dir / "study.yaml").string(), "--scheduler", "local",
                                    "--results-dir", results});
  REQUIRE(within(30, [&] { return fs::exists(dir / "pid.x"); }));
  const pid_t workload = pid_in(dir / "pid.x");
  kill(-cli, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(-cli, SIGINT);
  // At once: well before the workload (which ignores SIGTERM) ends or is killed.
  CHECK(exit_within(cli, 1.5) == 130);
  const std::string err = read_file((dir / "err.txt").string());
  CAPTURE(err);
  CHECK(err.find("interrupted again: left at once") != std::string::npos);
  CHECK(err.find("still stopping") != std::string::npos);
  CHECK(alive(workload));
  // It goes on and ends well; its keeper's record makes status say so.
  REQUIRE(within(10, [&] { return !alive(workload); }));
  REQUIRE(within(5, [&] { return processes_mentioning(dir.string()).empty(); }));
  REQUIRE(run_cli({"status", "twice", "--results-dir", results}).exit_code == 0);
  CHECK(states(dir / "results" / "twice.sqlite") == "COMPLETED/1 ");
}

TEST_CASE("a run whose submitter was SIGKILLed is recorded completed after one attempt") {
  const fs::path dir = scratch_dir("interrupt_killed");
  fs::create_directories(dir);
  std::ofstream(dir / "study.yaml")
      << "study: killed\nworkload: {binary: " << write_sleeper(dir) << ", sleep_s: 2}\n";
  const std::string results = (dir / "results").string();
  const std::vector<std::string> run = {
      "run", (dir / "study.yaml").string(), "--scheduler", "local", "--results-dir", results};
  const pid_t cli = start_cli(dir, run);
  REQUIRE(within(30, [&] { return fs::exists(dir / "pid.x"); }));
  const pid_t workload = pid_in(dir / "pid.x");
  kill(cli, SIGKILL);
  CHECK(exit_within(cli, 5) == 128 + SIGKILL);
  REQUIRE(within(10, [&] { return !alive(workload); }));
  REQUIRE(within(5, [&] { return processes_mentioning(dir.string()).empty(); }));

  auto status = run_cli({"status", "killed", "--format", "json", "--results-dir", results});
  REQUIRE(status.exit_code == 0);
  auto json = nlohmann::json::parse(status.stdout_text);
  CHECK(json["runs"][0]["state"] == "COMPLETED");
  CHECK(json["runs"][0]["attempts"] == 1);
  // The next submit has nothing to do: the run is not executed again.
  std::vector<std::string> submit = run;
  submit[0] = "submit";
  auto again = run_cli(submit);
  CHECK(again.exit_code == 0);
  CHECK(again.stdout_text.find("0 submitted, 1 completed") != std::string::npos);
  CHECK(count_lines((dir / "executions.txt").string()) == 1);
}

TEST_CASE("with --detach, Ctrl-C leaves the run going on and its end is recorded later") {
  const fs::path dir = scratch_dir("interrupt_detach");
  fs::create_directories(dir);
  std::ofstream(dir / "study.yaml") << "study: detach\nworkload: {binary: " << write_sleeper(dir)
                                    << ", sleep_s: 2}\nmatrix: {tag: [a, b]}\n";
  const std::string results = (dir / "results").string();
  const pid_t cli = start_cli(dir, {"run", (dir / "study.yaml").string(), "--scheduler", "local",
                                    "--results-dir", results, "--detach"});
  fs::path started;
  REQUIRE(within(30, [&] {
    for (const char* tag : {"a", "b"}) {
      if (fs::exists(dir / (std::string("pid.") + tag)))
        started = dir / (std::string("pid.") + tag);
    }
    return !started.empty();
  }));
  const pid_t workload = pid_in(started);
  kill(-cli, SIGINT);
  CHECK(exit_within(cli, 1.5) == 130);
  CHECK(read_file((dir / "err.txt").string()).find("with --detach: left at once") !=
        std::string::npos);
  CHECK(alive(workload));
  REQUIRE(within(10, [&] { return !alive(workload); }));
  REQUIRE(within(5, [&] { return processes_mentioning(dir.string()).empty(); }));
  REQUIRE(run_cli({"status", "detach", "--results-dir", results}).exit_code == 0);
  // The started run completed after its one attempt; the other was never claimed for good.
  CHECK(states(dir / "results" / "detach.sqlite") == "COMPLETED/1 PLANNED/0 ");
}
