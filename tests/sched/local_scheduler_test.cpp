// The local backend against real processes: a small shell workload records what each
// rank saw (RANK, WORLD_SIZE, MASTER_PORT, start/end times) in its run directory.
#include "orchestrator/sched/local_scheduler.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <thread>

using namespace scalestudy::sched;
namespace fs = std::filesystem;

namespace {

// fake_rank.sh OUT_DIR SLEEP_S FAILING_RANK PEERS: records the rank's view, sleeps, and exits
// 3 on FAILING_RANK. With PEERS > 0 it first waits (at most 60 s) until PEERS runs of its
// folder have started, so runs that may overlap do, however late each is scheduled.
const char kFakeRank[] = R"sh(#!/bin/sh
out=$1; sleep_s=$2; failing_rank=$3; peers=$4
start=$(date +%s.%N)
if [ "$peers" -gt 0 ]; then
  touch "$out.started"
  tries=0
  while [ "$(ls "${out%/*}"/*.started | wc -l)" -lt "$peers" ] && [ "$tries" -lt 600 ]; do
    sleep 0.1; tries=$((tries + 1))
  done
fi
sleep "$sleep_s"
echo "$RANK $WORLD_SIZE $LOCAL_RANK $MASTER_ADDR $MASTER_PORT $start $(date +%s.%N)" >> "$out/ranks.txt"
[ "$RANK" = "$failing_rank" ] && exit 3
exit 0
)sh";

struct RankLine {
  int rank, world_size, local_rank;
  std::string master_addr;
  int master_port;
  double start_s, end_s;
};

fs::path test_dir(const char* name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "fake_rank.sh") << kFakeRank;
  fs::permissions(dir / "fake_rank.sh", fs::perms::owner_all);
  return dir;
}

PreparedRun run_of(const fs::path& dir, const std::string& run_id, int world_size, double sleep_s,
                   int failing_rank = -1, int peers = 0) {
  PreparedRun run;
  run.spec.run_id = run_id;
  run.spec.world_size = world_size;
  run.out_dir = (dir / run_id).string();
  fs::create_directories(run.out_dir);
  run.workload_argv = {(dir / "fake_rank.sh").string(), run.out_dir, std::to_string(sleep_s),
                       std::to_string(failing_rank), std::to_string(peers)};
  return run;
}

std::vector<RankLine> rank_lines(const PreparedRun& run) {
  std::vector<RankLine> lines;
  std::ifstream file(run.out_dir + "/ranks.txt");
  RankLine line;
  while (file >> line.rank >> line.world_size >> line.local_rank >> line.master_addr >>
         line.master_port >> line.start_s >> line.end_s) {
    lines.push_back(line);
  }
  return lines;
}

struct Recorder {
  std::vector<Submission> submitted;
  std::map<std::string, JobStatus> finished;
  SubmitCallbacks callbacks() {
    return {[this](const Submission& s) { submitted.push_back(s); },
            [this](const Submission& s, const JobStatus& status) { finished[s.run_id] = status; }};
  }
};

}  // namespace

TEST_CASE("a two-rank run gets the torchrun environment and completes") {
  fs::path dir = test_dir("scalestudy_local_two_ranks");
  LocalOptions options;
  LocalScheduler scheduler(options);
  Recorder recorder;
  std::vector<PreparedRun> runs = {run_of(dir, "r1", 2, 0.1)};
  auto submitted = scheduler.submit(runs, recorder.callbacks());
  REQUIRE(submitted.is_ok());
  REQUIRE(recorder.submitted.size() == 1);
  const std::string job_id = recorder.submitted[0].job_id;
  CHECK(job_id.rfind("local-" + std::to_string(getpid()) + ".", 0) == 0);
  CHECK(recorder.finished["r1"].state == JobState::kCompleted);

  auto lines = rank_lines(runs[0]);
  REQUIRE(lines.size() == 2);
  std::sort(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.rank < b.rank; });
  CHECK(lines[0].rank == 0);
  CHECK(lines[1].rank == 1);
  CHECK(lines[1].local_rank == 1);
  CHECK(lines[0].world_size == 2);
  CHECK(lines[0].master_addr == "127.0.0.1");
  CHECK(lines[0].master_port == lines[1].master_port);
  CHECK(lines[0].master_port > 0);
  CHECK(fs::exists(runs[0].out_dir + "/rank1.log"));

  auto polled = scheduler.poll({job_id});
  REQUIRE(polled.is_ok());
  CHECK((*polled)[job_id].state == JobState::kCompleted);
}

TEST_CASE("a failing rank fails its run and stops the other ranks") {
  fs::path dir = test_dir("scalestudy_local_failing_rank");
  LocalScheduler scheduler(LocalOptions{});
  Recorder recorder;
  auto started = std::chrono::steady_clock::now();
  // Rank 1 fails after 0.2 s; rank 0 would sleep 300 s, far beyond the bound below, which
  // leaves a loaded machine plenty of time to stop it.
  PreparedRun run = run_of(dir, "bad", 2, 0.2, 1);
  run.workload_argv = {"/bin/sh", "-c",
                       "if [ \"$RANK\" = 1 ]; then sleep 0.2; exit 3; else sleep 300; fi"};
  REQUIRE(scheduler.submit({run}, recorder.callbacks()).is_ok());
  double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const JobStatus& status = recorder.finished["bad"];
  CHECK(status.state == JobState::kFailed);
  CHECK(status.exit_code == 3);
  CHECK(status.reason == "rank 1 exited with code 3");
  CHECK(elapsed_s < 60);
}

TEST_CASE("a rank that ignores SIGTERM after another failed is killed once the grace is over") {
  fs::path dir = test_dir("scalestudy_local_kill_escalation");
  LocalScheduler scheduler(LocalOptions{});
  Recorder recorder;
  // Rank 0 outlives SIGTERM and never exits on its own: the run ends only if the submitter
  // wakes for the SIGKILL after the grace period (a hang here hits the test timeout).
  PreparedRun run = run_of(dir, "stubborn", 2, 0);
  // Rank 1 fails only once rank 0 ignores SIGTERM (its sleep inherits that).
  run.workload_argv = {"/bin/sh", "-c",
                       "ready=$SCALESTUDY_OUT_DIR/ignoring_term; if [ \"$RANK\" = 1 ]; then "
                       "while [ ! -e \"$ready\" ]; do sleep 0.05; done; exit 3; "
                       "else trap '' TERM; touch \"$ready\"; sleep 300; fi"};
  REQUIRE(scheduler.submit({run}, recorder.callbacks()).is_ok());
  const JobStatus& status = recorder.finished["stubborn"];
  CHECK(status.state == JobState::kFailed);
  CHECK(status.reason == "rank 1 exited with code 3");
}

TEST_CASE("a launcher's report of a killed rank is a signal, not launcher rank 0's exit code") {
  fs::path dir = test_dir("scalestudy_local_launcher_signal");
  // Stands in for scalestudy-launch: exits as it does when its first failed rank died of a
  // signal (128 + N), or with the rank's own exit code.
  fs::path launcher = dir / "fake_launch.sh";
  std::ofstream(launcher) << "#!/bin/sh\nexit \"$SCALESTUDY_FAKE_LAUNCH_EXIT\"\n";
  fs::permissions(launcher, fs::perms::owner_all);
  LocalOptions options;
  options.launcher_path = launcher.string();
  const struct {
    const char* exit_code;
    JobState state;
    const char* reason;
  } kCases[] = {
      {"137", JobState::kCancelled, "killed by signal 9 (Killed)"},
      {"143", JobState::kCancelled, "killed by signal 15 (Terminated)"},
      {"139", JobState::kFailed, "killed by signal 11 (Segmentation fault)"},
      {"3", JobState::kFailed, "exited with code 3"},
  };
  for (const auto& expected : kCases) {
    CAPTURE(expected.exit_code);
    setenv("SCALESTUDY_FAKE_LAUNCH_EXIT", expected.exit_code, 1);
    LocalScheduler scheduler(options);
    Recorder recorder;
    PreparedRun run = run_of(dir, std::string("launched") + expected.exit_code, 2, 0);
    REQUIRE(scheduler.submit({run}, recorder.callbacks()).is_ok());
    const JobStatus& status = recorder.finished[run.spec.run_id];
    CHECK(status.state == expected.state);
    CHECK(status.reason ==
          std::string("a rank under scalestudy-launch (see its log) ") + expected.reason);
  }
  // 75: every rank stopped with a checkpoint; the run resumes on its next attempt.
  setenv("SCALESTUDY_FAKE_LAUNCH_EXIT", "75", 1);
  LocalScheduler scheduler(options);
  Recorder recorder;
  PreparedRun run = run_of(dir, "launched75", 2, 0);
  REQUIRE(scheduler.submit({run}, recorder.callbacks()).is_ok());
  const JobStatus& status = recorder.finished[run.spec.run_id];
  CHECK(status.state == JobState::kPreempted);
  CHECK(status.exit_code == 75);
  CHECK(status.reason.find("checkpointed (exit 75)") != std::string::npos);
  unsetenv("SCALESTUDY_FAKE_LAUNCH_EXIT");
}

TEST_CASE("max_parallel_runs bounds concurrent runs, each with its own MASTER_PORT") {
  fs::path dir = test_dir("scalestudy_local_parallel");
  LocalOptions options;
  options.max_parallel_runs = 2;
  options.max_slots = 8;
  LocalScheduler scheduler(options);
  Recorder recorder;
  std::vector<PreparedRun> runs;
  // Each run waits until two have started: the first two overlap however they are scheduled.
  for (int i = 0; i < 4; ++i) runs.push_back(run_of(dir, "p" + std::to_string(i), 1, 0.5, -1, 2));
  REQUIRE(scheduler.submit(runs, recorder.callbacks()).is_ok());
  std::vector<RankLine> all;
  for (const auto& run : runs) {
    auto lines = rank_lines(run);
    REQUIRE(lines.size() == 1);
    all.push_back(lines[0]);
    CHECK(recorder.finished[run.spec.run_id].state == JobState::kCompleted);
  }
  int most_at_once = 0;
  for (const auto& a : all) {
    int at_once = 0;
    std::set<int> ports;
    for (const auto& b : all) {
      if (b.start_s <= a.start_s && a.start_s < b.end_s) {
        ++at_once;
        ports.insert(b.master_port);
      }
    }
    CHECK(static_cast<int>(ports.size()) == at_once);  // concurrent runs never share a port
    most_at_once = std::max(most_at_once, at_once);
  }
  CHECK(most_at_once == 2);
}

TEST_CASE("max_slots counts ranks: two 2-rank runs on 2 slots run one after the other") {
  fs::path dir = test_dir("scalestudy_local_slots");
  LocalOptions options;
  options.max_parallel_runs = 4;
  options.max_slots = 2;
  LocalScheduler scheduler(options);
  Recorder recorder;
  std::vector<PreparedRun> runs = {run_of(dir, "s0", 2, 0.3), run_of(dir, "s1", 2, 0.3)};
  REQUIRE(scheduler.submit(runs, recorder.callbacks()).is_ok());
  auto first = rank_lines(runs[0]), second = rank_lines(runs[1]);
  REQUIRE(first.size() == 2);
  REQUIRE(second.size() == 2);
  double first_end = std::max(first[0].end_s, first[1].end_s);
  double second_start = std::min(second[0].start_s, second[1].start_s);
  CHECK(second_start >= first_end - 0.05);
}

TEST_CASE("another process's scheduler sees a live run and can cancel it") {
  fs::path dir = test_dir("scalestudy_local_cancel");
  // Far longer than the test needs to see the run and cancel it, however loaded the machine.
  PreparedRun run = run_of(dir, "long", 1, 300);
  Recorder recorder;
  std::promise<std::string> submitted_job;
  std::future<std::string> submitted = submitted_job.get_future();
  std::thread submitter([&] {
    LocalScheduler scheduler(LocalOptions{});
    SubmitCallbacks callbacks = recorder.callbacks();
    auto report = callbacks.submitted;
    callbacks.submitted = [&](const Submission& s) {
      report(s);
      submitted_job.set_value(s.job_id);
    };
    CHECK(scheduler.submit({run}, callbacks).is_ok());
  });
  // Only a guard against a hang: the run is submitted within milliseconds.
  REQUIRE(submitted.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  const std::string job_id = submitted.get();
  LocalScheduler observer(LocalOptions{});
  auto polled = observer.poll({job_id});
  REQUIRE(polled.is_ok());
  CHECK((*polled)[job_id].state == JobState::kRunning);
  REQUIRE(observer.cancel({job_id}).is_ok());
  submitter.join();
  CHECK(recorder.finished["long"].state == JobState::kCancelled);
}

TEST_CASE("a run whose submitter died without recording it reads as lost") {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  const std::string job_id = "local-" + std::to_string(child) + "." + std::to_string(child);
  LocalScheduler observer(LocalOptions{});
  auto polled = observer.poll({job_id});
  REQUIRE(polled.is_ok());
  REQUIRE(polled->count(job_id) == 1);
  CHECK((*polled)[job_id].state == JobState::kFailed);
  CHECK((*polled)[job_id].reason.find("lost") == 0);
}
