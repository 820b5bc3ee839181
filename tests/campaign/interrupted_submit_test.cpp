// A local run is never executing without a record of it, and a run whose submitter was
// interrupted is judged by what it left: the launch waits at a gate until the run is
// recorded (a failed record, or the submitter's death, ends the held processes before the
// workload starts), and a leftover that completed unobserved is recorded COMPLETED, not
// "lost" and run again.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/core/sqlite.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/sched/local_scheduler.hpp"

using namespace scalestudy;
using namespace scalestudy::sched;
using namespace scalestudy::campaign;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const char* name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A one-rank run whose workload leaves <out_dir>/started when it executes.
PreparedRun marking_run(const fs::path& dir, const std::string& run_id) {
  PreparedRun run;
  run.spec.run_id = run_id;
  run.spec.world_size = 1;
  run.out_dir = (dir / run_id).string();
  fs::create_directories(run.out_dir);
  run.workload_argv = {"/bin/sh", "-c", "touch '" + run.out_dir + "/started'; sleep 0.2"};
  return run;
}

pid_t dead_pid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

// Whether `pid` still runs: present and not a zombie (an orphan waits for its reaper).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, command, state;
  if (!(stat >> pid_field >> command >> state)) return false;
  return state != "Z";
}

}  // namespace

TEST_CASE("a local run that cannot be recorded is never started") {
  fs::path dir = fresh_dir("scalestudy_gate_refused");
  LocalScheduler scheduler(LocalOptions{});
  PreparedRun run = marking_run(dir, "unrecorded");
  bool submitted_called = false;
  SubmitCallbacks callbacks;
  callbacks.launching = [](const Submission&) { return Status::error("database or disk is full"); };
  callbacks.submitted = [&](const Submission&) { submitted_called = true; };
  auto result = scheduler.submit({run}, callbacks);
  REQUIRE_FALSE(result.is_ok());
  CHECK(result.status().message().find("run unrecorded not started") != std::string::npos);
  CHECK(result.status().message().find("disk is full") != std::string::npos);
  CHECK_FALSE(submitted_called);
  // submit() kills and reaps a refused run's processes before it returns: this process has no
  // child left that could still start the workload, so the check below cannot come too early.
  errno = 0;
  CHECK(waitpid(-1, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
  CHECK_FALSE(fs::exists(run.out_dir + "/started"));
}

TEST_CASE("a recorded local run starts after its record, under the recorded job id") {
  fs::path dir = fresh_dir("scalestudy_gate_recorded");
  LocalScheduler scheduler(LocalOptions{});
  PreparedRun run = marking_run(dir, "recorded");
  std::string launching_id, submitted_id;
  SubmitCallbacks callbacks;
  callbacks.launching = [&](const Submission& submission) {
    launching_id = submission.job_id;
    // Held at the gate: the workload has not run yet.
    CHECK_FALSE(fs::exists(run.out_dir + "/started"));
    return Status::ok();
  };
  callbacks.submitted = [&](const Submission& submission) { submitted_id = submission.job_id; };
  REQUIRE(scheduler.submit({run}, callbacks).is_ok());
  CHECK(launching_id == submitted_id);
  CHECK(fs::exists(run.out_dir + "/started"));
}

TEST_CASE("a submitter killed while its run waits at the gate leaves nothing running") {
  fs::path dir = fresh_dir("scalestudy_gate_submitter_killed");
  PreparedRun run = marking_run(dir, "orphan");
  const fs::path job_id_file = dir / "job_id";
  pid_t submitter = fork();
  if (submitter == 0) {
    LocalScheduler scheduler(LocalOptions{});
    SubmitCallbacks callbacks;
    callbacks.launching = [&](const Submission& submission) {
      std::ofstream(job_id_file) << submission.job_id.substr(submission.job_id.find('.') + 1);
      raise(SIGKILL);  // killed between creating the processes and recording them
      return Status::ok();
    };
    (void)scheduler.submit({run}, callbacks);
    _exit(0);
  }
  int wait_status = 0;
  waitpid(submitter, &wait_status, 0);
  REQUIRE(WIFSIGNALED(wait_status));
  pid_t group = 0;
  std::ifstream(job_id_file) >> group;
  REQUIRE(group > 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (running(group) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK_FALSE(running(group));
  CHECK_FALSE(fs::exists(run.out_dir + "/started"));
}

TEST_CASE("an unobserved leftover that completed is recorded completed, one that did not is lost") {
  fs::path dir = fresh_dir("scalestudy_leftover_reconcile");
  auto state = StudyState::open((dir / "demo.sqlite").string());
  REQUIRE(state.is_ok());
  REQUIRE(state->save_study({"demo", "strong", "/s/demo.yaml", "{}", "{}", 3}).is_ok());
  std::vector<PlannedRun> planned;
  for (const char* run_id : {"finished", "vanished"}) {
    PlannedRun run;
    run.spec.run_id = run_id;
    run.spec.study = "demo";
    run.spec.world_size = 1;
    run.out_dir = (dir / run_id).string();
    fs::create_directories(run.out_dir);
    planned.push_back(run);
  }
  REQUIRE(state->plan_runs(planned).is_ok());
  auto claimed = state->claim_runs(3, RetryPolicy{}, "host:1:test");
  REQUIRE(claimed.is_ok());
  REQUIRE(claimed->size() == 2);
  const pid_t gone = dead_pid();
  for (const char* run_id : {"finished", "vanished"}) {
    const std::string job_id = "local-" + std::to_string(gone) + "." + std::to_string(gone);
    REQUIRE(state->record_submission({run_id, job_id}, "local", "host:1:test").is_ok());
  }
  {
    auto rank = sqlite::Database::open((dir / "finished" / "rank0.sqlite").string());
    REQUIRE(rank.is_ok());
    REQUIRE(
        rank->exec("CREATE TABLE run (status TEXT); INSERT INTO run VALUES ('completed')").is_ok());
  }
  LocalScheduler scheduler(LocalOptions{});
  REQUIRE(reconcile_study(*state, SchedulerContext{}, &scheduler).is_ok());
  auto runs = state->runs();
  REQUIRE(runs.is_ok());
  for (const RunRecord& run : *runs) {
    CAPTURE(run.run_id);
    if (run.run_id == "finished") {
      CHECK(run.state == "COMPLETED");
    } else {
      CHECK(run.state == "FAILED");
      CHECK(run.reason.find("lost") == 0);
    }
  }
}
