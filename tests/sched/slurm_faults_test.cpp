// Faults on the real local SLURM cluster (labels slurm and faults): a newcomer's root-owned
// results folder with slurmrest jobs that run as the token's user, a node lost in the
// middle of a job (requeued by SLURM; or, not requeueable, retried by scalestudy on other
// nodes), a script that raises on its first step (failure class program), a results folder
// the jobs' user cannot enter (class setup), a DDP rank that never reaches its all-reduce
// (class hang, with its stacks), and a submitter that lost its claim after submitting its
// job. Needs root and the cluster scripts; skipped otherwise.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "harness/core/sqlite.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/holding_relay.hpp"
#include "tests/support/skip.hpp"
#include "tests/support/slurm_cluster_session.hpp"
#include "tests/support/slurm_jobs.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

TEST_CASE("slurmrest as root: jobs of the token's user write into a root-owned results dir") {
  REQUIRE_CLUSTER();
  const char* job_user = std::getenv("SCALESTUDY_SLURMRESTD_USER");
  if (job_user == nullptr || std::string(job_user) == "root") {
    SKIP_NOT_APPLICABLE("the token's user is root; jobs run as the submitter");
  }
  // As a newcomer's shell: umask 022, a results folder only root may write.
  const mode_t previous_umask = umask(022);
  const fs::path dir = cluster.work_dir() / "newcomer";
  fs::create_directories(dir);
  const fs::path results = dir / "results";
  fs::create_directories(results);
  fs::permissions(results, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  // Two runs of each of two shapes: two job arrays.
  const std::string study =
      write_study(dir, "newcomer",
                  "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
                      "}\nscale: [1, 2]\nrepeats: 2\nslurm: {ranks_per_node: 2, time: \"5\"}\n"
                      "max_attempts: 1\n");
  ProcessResult submitted =
      run_cli({"submit", study, "--scheduler", "slurmrest", "--results-dir", results.string()});
  INFO(submitted.stdout_text << submitted.stderr_text);
  CHECK(submitted.exit_code == 0);
  ProcessResult ran = run_cli({"wait", study, "--results-dir", results.string(), "--poll-interval",
                               "1", "--timeout", "120"},
                              180'000);
  umask(previous_umask);
  INFO(ran.stdout_text << ran.stderr_text);
  CHECK(ran.exit_code == 0);
  auto status = status_of(study, results.string());
  CHECK(status["completed"] == 4);
  auto db = scalestudy::sqlite::Database::open((results / "newcomer.sqlite").string(),
                                               scalestudy::sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  for (const auto& run : status["runs"]) {
    const std::string out_dir = run["out_dir"];
    CAPTURE(out_dir);
    CHECK(run["state"] == "COMPLETED");
    struct stat info {};
    REQUIRE(stat(out_dir.c_str(), &info) == 0);
    CHECK(info.st_uid != 0);  // handed to the job's user
    auto world_size = db->query_value("SELECT world_size FROM runs WHERE run_id = ?",
                                      {run["run_id"].get<std::string>()});
    REQUIRE(world_size.is_ok());
    // One line per rank of one execution.
    CHECK(count_lines(out_dir + "/executions.txt") == std::get<int64_t>(**world_size));
  }
}

TEST_CASE("a node lost mid-job: SLURM's requeue completes the run once, as a second attempt") {
  REQUIRE_CLUSTER();
  const fs::path dir = cluster.work_dir() / "node_lost";
  fs::create_directories(dir);
  // The job must still be running when the test, polling squeue, kills its node: 30 s is
  // ample even when squeue answers slowly on a loaded machine.
  const std::string study =
      write_study(dir, "nodelost",
                  "kind: custom\nworkload: {binary: " + write_marking_workload(dir) +
                      ", sleep_s: 30}\nslurm: {time: \"10\"}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted =
      run_cli({"submit", study, "--scheduler", "slurm", "--results-dir", results});
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  auto status = status_of(study, results);
  REQUIRE(status["runs"].size() == 1);
  const std::string job_id = status["runs"][0]["job_id"];
  const std::string out_dir = status["runs"][0]["out_dir"];

  // Running: find its node, then end that node as a power cut would (slurmd and the job's
  // processes, SIGKILL).
  const std::string node =
      wait_running(job_id, [&] { return fs::exists(out_dir + "/starts"); }).node_list;
  REQUIRE_FALSE(node.empty());
  REQUIRE(cluster.kill_node(node));

  // slurmctld notices the silent node (SlurmdTimeout, 30 s here) and requeues the job, which
  // then waits for a begin time two minutes on (SLURM's credential lifetime): once `wait`
  // has recorded it pending again, it is started at once, on another node.
  ProcessResult waited;
  std::thread waiter([&] {
    waited = run_cli(
        {"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "300"},
        360'000);
  });
  // `wait` has seen the requeue once the study database holds the second attempt.
  auto requeue_recorded = [&] {
    auto db = scalestudy::sqlite::Database::open(results + "/nodelost.sqlite",
                                                 scalestudy::sqlite::OpenMode::kReadOnly);
    if (!db) return false;
    auto attempts = db->query("SELECT attempts FROM runs");
    return attempts && attempts->size() == 1 &&
           scalestudy::sqlite::to_string((*attempts)[0][0]) == "2";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  bool started_again = false;
  while (!started_again && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto queued = run_process({{"squeue", "-h", "-j", job_id, "-o", "%T"}, {}, 10'000});
    if (!queued || queued->stdout_text.rfind("PENDING", 0) != 0 || !requeue_recorded()) continue;
    started_again =
        run_process({{"scontrol", "update", "JobId=" + job_id, "StartTime=now"}, {}, 10'000})
            ->succeeded();
  }
  waiter.join();
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(started_again);
  CHECK(cluster.restart_missing_daemons());
  CHECK(waited.exit_code == 0);
  status = status_of(study, results);
  const auto& run = status["runs"][0];
  CHECK(run["state"] == "COMPLETED");
  CHECK(run["reason"] == "");
  CHECK(run["attempts"] == 2);
  CHECK(count_lines(out_dir + "/starts") == 2);
  CHECK(count_lines(out_dir + "/ends") == 1);  // completed exactly once
  auto db = scalestudy::sqlite::Database::open(results + "/nodelost.sqlite",
                                               scalestudy::sqlite::OpenMode::kReadOnly);
  REQUIRE(db.is_ok());
  auto attempts = db->query("SELECT state, job_id FROM attempts ORDER BY attempt");
  REQUIRE(attempts.is_ok());
  REQUIRE(attempts->size() == 2);
  CHECK(scalestudy::sqlite::to_string((*attempts)[0][0]) == "REQUEUED");
  CHECK(scalestudy::sqlite::to_string((*attempts)[1][0]) == "COMPLETED");
  CHECK(scalestudy::sqlite::to_string((*attempts)[1][1]) == job_id);
  CHECK(processes_mentioning(out_dir).empty());
}

// Issue 64 on the cluster: a script that raises on its first step fails the same way every
// time, so it is tried once (class program, its traceback's last line the evidence), unless
// the study's policy asks for retries; through sbatch and through slurmrestd alike.
TEST_CASE("a script raising on step 1: one attempt, class program with its traceback") {
  REQUIRE_CLUSTER();
  const fs::path dir = cluster.work_dir() / "raises";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script = dir / "raising_train.py";
  std::ofstream(script) << "#!/usr/bin/python3\nprint('step 1 loss 2.30', flush=True)\n"
                           "raise ValueError('bad shard 3')\n";
  fs::permissions(script, fs::perms::all & ~fs::perms::group_write & ~fs::perms::others_write);
  for (const std::string scheduler : {"slurm", "slurmrest"}) {
    for (const int program_retries : {0, 1}) {
      CAPTURE(scheduler);
      CAPTURE(program_retries);
      const std::string name = "raises-" + scheduler + "-" + std::to_string(program_retries);
      const std::string study =
          write_study(dir, name,
                      "kind: custom\nworkload: {binary: " + script.string() +
                          "}\nslurm: {time: \"5\"}\nmax_attempts: 3\npolicy: {retry: {program: " +
                          std::to_string(program_retries) + "}}\n");
      const std::string results = (dir / ("results-" + name)).string();
      ProcessResult ran = run_cli({"run", study, "--scheduler", scheduler, "--results-dir", results,
                                   "--poll-interval", "1", "--timeout", "300", "--no-plots"},
                                  400'000);
      INFO(ran.stdout_text << ran.stderr_text);
      CHECK(ran.exit_code == 1);  // a run failed for good
      const auto status = status_of(study, results);
      REQUIRE(status["runs"].size() == 1);
      const auto& run = status["runs"][0];
      CHECK(run["state"] == "FAILED");
      CHECK(run["attempts"] == 1 + program_retries);
      CHECK(run["failure_class"] == "program");
      const std::string evidence = run["failure_evidence"];
      CHECK(evidence.find("ValueError: bad shard 3") != std::string::npos);
    }
  }
}

// Issue 64 on the cluster, as a newcomer meets it: slurmrest's jobs run as the token's user,
// and the results folder is `mktemp -d`'s (0700). Refused before anything is submitted; a
// folder closed after the submit (held jobs, released later) fails its one attempt as class
// setup with the cause, not three times as "ended FAILED before this run's step started".
TEST_CASE("a results folder the jobs' user cannot enter: refused, or one setup attempt") {
  REQUIRE_CLUSTER();
  const char* job_user = std::getenv("SCALESTUDY_SLURMRESTD_USER");
  if (job_user == nullptr || std::string(job_user) == "root") {
    SKIP_NOT_APPLICABLE("the token's user is root; jobs run as the submitter");
  }
  const fs::path dir = cluster.work_dir() / "closed_results";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto open_to_others = fs::perms::owner_all | fs::perms::others_exec;
  const std::string workload = write_fake_workload(dir);
  for (const std::string allocation : {"per_run", "packed"}) {
    CAPTURE(allocation);
    const std::string study = write_study(
        dir, "closed-" + allocation,
        "kind: custom\nworkload: {binary: " + workload + "}\nallocation: " + allocation +
            "\nslurm: {time: \"5\", extra: [\"--hold\"]}\nmax_attempts: 3\n");
    const fs::path results = dir / ("results-" + allocation);
    fs::create_directories(results);
    fs::permissions(results, fs::perms::owner_all);
    ProcessResult refused =
        run_cli({"submit", study, "--scheduler", "slurmrest", "--results-dir", results.string()});
    INFO(refused.stdout_text << refused.stderr_text);
    CHECK(refused.exit_code != 0);
    CHECK(refused.stderr_text.find(results.string() + ": " + job_user +
                                   ", the user the jobs run as, cannot enter it (mode 0700)") !=
          std::string::npos);
    auto status = status_of(study, results.string());
    for (const auto& run : status["runs"]) {
      CHECK(run["state"] == "PLANNED");
      CHECK(run["attempts"] == 0);
    }

    fs::permissions(results, open_to_others);
    ProcessResult submitted =
        run_cli({"submit", study, "--scheduler", "slurmrest", "--results-dir", results.string()});
    INFO(submitted.stdout_text << submitted.stderr_text);
    REQUIRE(submitted.exit_code == 0);
    fs::permissions(results, fs::perms::owner_all);
    status = status_of(study, results.string());
    REQUIRE(status["runs"].size() == 1);
    const std::string job_id = status["runs"][0]["job_id"];
    const std::string allocation_id = job_id.substr(0, job_id.find('+'));
    REQUIRE(run_process({{"scontrol", "release", allocation_id}, {}, 10'000})->succeeded());
    ProcessResult waited = run_cli({"wait", study, "--results-dir", results.string(),
                                    "--poll-interval", "1", "--timeout", "120"},
                                   180'000);
    INFO(waited.stdout_text << waited.stderr_text);
    CHECK(waited.exit_code == 1);  // failed for good
    status = status_of(study, results.string());
    const auto& run = status["runs"][0];
    CHECK(run["state"] == "FAILED");
    CHECK(run["attempts"] == 1);
    CHECK(run["failure_class"] == "setup");
    const std::string evidence = run["failure_evidence"];
    CHECK(evidence.find("0:53") != std::string::npos);
    CHECK(evidence.find("now " + results.string() + ": " + job_user) != std::string::npos);
    fs::permissions(results, open_to_others);
  }
}

// Issue 64 on the cluster: a DDP script (torchrun-style launcher, 1 node x 2 ranks) whose
// rank 1 blocks forever before the first all-reduce that rank 0 waits in. The launcher's
// watchdog (policy.hang_after) stops it long before its time limit with both ranks' stacks
// (py-spy's, with the blocked frame named), class hang, and the report names the rank that
// did not arrive; retried once (retry.hang) on another node, then left failed. Through
// sbatch and slurmrestd: the job's environment, user and node exclusion differ.
TEST_CASE("a rank that never reaches its all-reduce: stopped with stacks, class hang, retried") {
  REQUIRE_CLUSTER();
  const fs::path py_spy = fs::path(source_dir()) / ".deps/python-venv/bin/py-spy";
  if (!fs::exists(py_spy) && std::system("command -v py-spy >/dev/null 2>&1") != 0) {
    SKIP_UNLESS_INSTALLED("py-spy (scripts/python-venv.sh) takes a Python rank's stacks");
  }
  const fs::path dir = cluster.work_dir() / "hang";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script = dir / "stuck_ddp.py";
  // Says it is setting up until both ranks joined, so a slow import of torch on a loaded
  // node is progress, not the hang; then nothing more.
  std::ofstream(script)
      << "#!/usr/bin/python3\nimport threading, time\nready = threading.Event()\n"
         "def setting_up():\n    while not ready.wait(2):\n"
         "        print('setting up', flush=True)\n"
         "threading.Thread(target=setting_up, daemon=True).start()\n"
         "import torch\nimport torch.distributed as dist\n\n"
         "def wait_for_shard_that_never_comes():\n    while True:\n        time.sleep(1)\n\n"
         "dist.init_process_group('gloo')\nrank = dist.get_rank()\n"
         "print(f'rank {rank} joined', flush=True)\nready.set()\n"
         "if rank == 1:\n    wait_for_shard_that_never_comes()\n"
         "total = torch.ones(1)\ndist.all_reduce(total)\nprint('step 1', flush=True)\n";
  fs::permissions(script, fs::perms::all & ~fs::perms::group_write & ~fs::perms::others_write);
  for (const std::string scheduler : {"slurm", "slurmrest"}) {
    CAPTURE(scheduler);
    const std::string name = "hang-" + scheduler;
    const std::string study =
        write_study(dir, name,
                    "workload: {binary: /usr/bin/python3, args: [" + script.string() +
                        "], run_flags: false}\nscale: [{nodes: 1, ranks_per_node: 2}]\n"
                        "launcher: torchrun\nslurm: {time: \"10\"}\nmax_attempts: 3\n"
                        "policy: {hang_after: 15}\n");
    const std::string results = (dir / ("results-" + name)).string();
    ProcessResult ran = run_cli({"run", study, "--scheduler", scheduler, "--results-dir", results,
                                 "--poll-interval", "1", "--timeout", "500", "--no-plots"},
                                560'000);
    INFO(ran.stdout_text << ran.stderr_text);
    CHECK(ran.exit_code == 1);  // failed for good after its one retry
    const auto status = status_of(study, results);
    REQUIRE(status["runs"].size() == 1);
    const auto& run = status["runs"][0];
    CHECK(run["state"] == "FAILED");
    CHECK(run["attempts"] == 2);
    CHECK(run["failure_class"] == "hang");
    const std::string evidence = run["failure_evidence"];
    CHECK(evidence.find("scalestudy-launch: no progress for 15 s") != std::string::npos);
    CHECK(evidence.find("rank 1 not in a collective (rank 0 waits in all_reduce)") !=
          std::string::npos);
    // Both ranks' stacks (of the last attempt), the blocked frame named.
    const fs::path stacks = fs::path(run["out_dir"].get<std::string>()) / "stacks";
    CHECK(read_file((stacks / "rank1.txt").string()).find("wait_for_shard_that_never_comes") !=
          std::string::npos);
    CHECK(read_file((stacks / "rank0.txt").string()).find("all_reduce") != std::string::npos);

    // Each attempt was stopped by the watchdog, not by its 10-minute limit, and the retry
    // ran on another node.
    auto db = scalestudy::sqlite::Database::open(results + "/" + name + ".sqlite",
                                                 scalestudy::sqlite::OpenMode::kReadOnly);
    REQUIRE(db.is_ok());
    auto attempts = db->query(
        "SELECT a.job_id, a.failure_class, p.node_list FROM attempts a JOIN placements p "
        "USING (run_id, attempt) ORDER BY attempt");
    REQUIRE(attempts.is_ok());
    REQUIRE(attempts->size() == 2);
    std::vector<std::string> nodes;
    for (const auto& row : *attempts) {
      CHECK(scalestudy::sqlite::to_string(row[1]) == "hang");
      nodes.push_back(scalestudy::sqlite::to_string(row[2]));
      const std::string job_id = scalestudy::sqlite::to_string(row[0]);
      auto accounted = run_process({{"sacct", "-X", "-n", "-P", "-j", job_id, "-o",
                                     "State,ElapsedRaw,TimelimitRaw,NodeList"},
                                    {},
                                    30'000});
      REQUIRE(accounted);
      CAPTURE(accounted->stdout_text);
      std::stringstream fields(accounted->stdout_text);
      std::string state, elapsed, limit, node_list;
      std::getline(fields, state, '|');
      std::getline(fields, elapsed, '|');
      std::getline(fields, limit, '|');
      std::getline(fields, node_list, '\n');
      CHECK(state == "FAILED");
      CHECK(std::stoi(elapsed) < 60 * std::stoi(limit));
      CHECK(node_list == nodes.back());
    }
    REQUIRE(nodes.size() == 2);
    CHECK_FALSE(nodes[0].empty());
    CHECK(nodes[0] != nodes[1]);
    CHECK(processes_mentioning(run["out_dir"].get<std::string>()).empty());
  }
}

// Issue 67 item 4 on the cluster: a submitter loses its claim on a plain run after its job
// was submitted and before it recorded it (stopped there; its claim, as if held on another
// host, lapsed and was taken by a second submit, which submitted the run again). When it
// goes on, its job is cancelled (it would run unaccounted beside the second), it says so
// and fails; the run runs once, as the second submit's job. Through sbatch (the submitter
// stopped by its sbatch, which holds the job so that it cannot start before its submitter
// resumes) and through slurmrestd (its request to submit held back by a relay).
namespace {

// Marks each start and end of a rank as the marking workload does, 3 s into the job: a job
// cancelled in its first seconds marks nothing.
std::string write_late_marking_workload(const fs::path& dir) {
  const auto path = dir / "late_marking_workload.sh";
  std::ofstream(path) << "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out-dir ] && out=$2; "
                         "shift; done\nsleep 3\necho \"$SLURM_JOB_ID\" >> \"$out/starts\"\n"
                         "sleep 1\necho \"$SLURM_JOB_ID\" >> \"$out/ends\"\n";
  fs::permissions(path, fs::perms::all);
  return path.string();
}

// The runs' state and claim in the study database; "" when it cannot be read yet.
std::string claim_of(const std::string& db_path) {
  auto db = scalestudy::sqlite::Database::open(db_path, scalestudy::sqlite::OpenMode::kReadOnly);
  if (!db) return "";
  auto rows = db->query("SELECT state, COALESCE(claim_token, '') FROM runs");
  if (!rows || rows->size() != 1) return "";
  return scalestudy::sqlite::to_string((*rows)[0][0]) + " " +
         scalestudy::sqlite::to_string((*rows)[0][1]);
}

// sacct's state of job `job` (its allocation line), once accounting has its end.
std::string accounted_state(const std::string& job) {
  std::string state;
  for (int tries = 0; tries < 60; ++tries) {
    auto listed = run_process(
        {{"sacct", "-n", "-X", "--parsable2", "-j", job, "--format=State"}, {}, 30'000});
    state = listed ? listed->stdout_text.substr(0, listed->stdout_text.find('\n')) : "";
    if (state.rfind("CANCELLED", 0) == 0 || state == "COMPLETED" || state == "FAILED") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return state;
}

bool job_queued(const std::string& job) {
  auto listed = run_process({{"squeue", "-h", "-j", job, "-o", "%i"}, {}, 10'000});
  return listed && listed->succeeded() && !listed->stdout_text.empty();
}

void claim_lost_after_submission(const std::string& scheduler) {
  ClusterSession& cluster = ClusterSession::get();
  const fs::path dir = cluster.work_dir() / ("lost_claim_" + scheduler);
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  const std::string study =
      write_study(dir, "lostclaim",
                  "kind: custom\nworkload: {binary: " + write_late_marking_workload(dir) +
                      "}\nslurm: {time: \"5\"}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  const std::string db = results + "/lostclaim.sqlite";
  std::map<std::string, std::string> environment;
  const std::string pid_file = (dir / "submitter.pid").string();
  std::optional<HoldingRelay> relay;
  pid_t stopped = 0;
  if (scheduler == "slurm") {
    auto sbatch = find_on_path("sbatch");
    REQUIRE(sbatch);
    std::ofstream(dir / "bin" / "sbatch")
        << "#!/bin/sh\nout=$('" << *sbatch << "' \"$@\")\nstatus=$?\nprintf '%s\\n' \"$out\"\n"
        << "if [ $status -eq 0 ]; then\n  scontrol hold \"${out%%;*}\"\n"
        << "  echo $PPID >'" << pid_file << "'\n  kill -STOP $PPID\nfi\nexit $status\n";
    fs::permissions(dir / "bin" / "sbatch", fs::perms::all);
    environment["PATH"] = (dir / "bin").string() + ":" + std::getenv("PATH");
  } else {
    relay.emplace(dir);
    REQUIRE(relay->ready());
    environment["SCALESTUDY_SLURMRESTD"] = relay->url();
  }
  ProcessResult first;
  std::thread submitter([&] {
    first = run_cli_with({"submit", study, "--scheduler", scheduler, "--results-dir", results},
                         environment, 300'000);
  });
  // The first submitter holds the run's claim (and, through sbatch, has submitted its job).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool claimed = false;
  while (!claimed && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    claimed = claim_of(db).rfind("SUBMITTING ", 0) == 0 &&
              (scheduler == "slurm" ? !read_file(pid_file).empty() : relay->holding());
  }
  if (scheduler == "slurm" && claimed) stopped = std::stoi(read_file(pid_file));
  // Its claim, as if held on another host and not renewed for an hour: stale.
  // (Checked only once the first submitter goes on: it must not stay stopped.)
  bool lapsed = false;
  if (auto writable =
          scalestudy::sqlite::Database::open(db, scalestudy::sqlite::OpenMode::kReadWrite)) {
    lapsed = writable
                 ->query(
                     "UPDATE runs SET claim_token = 'another-host:1:1', "
                     "claimed_at = '2000-01-01T00:00:00Z' WHERE state = 'SUBMITTING'")
                 .is_ok() &&
             writable->changes() == 1;
  }
  ProcessResult second =
      run_cli({"submit", study, "--scheduler", scheduler, "--results-dir", results});
  if (stopped != 0) kill(stopped, SIGCONT);
  if (relay) relay->release();
  submitter.join();
  REQUIRE(claimed);
  REQUIRE(lapsed);
  INFO("first: " << first.stdout_text << first.stderr_text);
  INFO("second: " << second.stdout_text << second.stderr_text);
  REQUIRE(second.exit_code == 0);
  CHECK(first.exit_code != 0);
  // "run R: job J could not be recorded, so it was cancelled"
  const std::string said = first.stdout_text + first.stderr_text;
  const size_t job_at = said.find(": job ");
  REQUIRE(job_at != std::string::npos);
  const std::string lost_job = said.substr(job_at + 6, said.find(' ', job_at + 6) - job_at - 6);
  CHECK(said.find("job " + lost_job + " could not be recorded, so it was cancelled") !=
        std::string::npos);
  for (int tries = 0; tries < 60 && job_queued(lost_job); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const bool left_queued = job_queued(lost_job);
  CHECK_FALSE(left_queued);
  if (left_queued) run_process({{"scancel", lost_job}, {}, 10'000});
  CHECK(accounted_state(lost_job).rfind("CANCELLED", 0) == 0);

  ProcessResult waited =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "180"},
              240'000);
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(waited.exit_code == 0);
  auto status = status_of(study, results);
  REQUIRE(status["runs"].size() == 1);
  const auto& run = status["runs"][0];
  const std::string kept_job = run["job_id"];
  CHECK(kept_job != lost_job);
  CHECK(run["state"] == "COMPLETED");
  CHECK(run["attempts"] == 1);
  const std::string out_dir = run["out_dir"];
  CHECK(read_file(out_dir + "/starts") == kept_job + "\n");
  CHECK(read_file(out_dir + "/ends") == kept_job + "\n");
}

}  // namespace

TEST_CASE("a plain job submitted by a submitter that lost its claim is cancelled; run once") {
  REQUIRE_CLUSTER();
  claim_lost_after_submission("slurm");
}

TEST_CASE("a plain job submitted by a submitter that lost its claim, via slurmrest") {
  REQUIRE_CLUSTER();
  claim_lost_after_submission("slurmrest");
}

// Issue 64 on the cluster: a node lost under a 2-node run that SLURM may not requeue
// (slurm.extra --no-requeue) ends it NODE_FAIL, class node, the evidence naming its nodes;
// scalestudy's own retry is a new job that leaves them out, and it does not use up
// max_attempts (1 here). Through sbatch and through slurmrestd alike.
TEST_CASE("a node killed under a 2-node run: class node, retried leaving its nodes out") {
  REQUIRE_CLUSTER();
  const fs::path dir = cluster.work_dir() / "node_killed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string workload = write_marking_workload(dir);
  for (const std::string scheduler : {"slurm", "slurmrest"}) {
    CAPTURE(scheduler);
    const DaemonsRestartedAtExit restart(cluster);
    const std::string name = "nodekilled-" + scheduler;
    // Each rank sleeps 30 s: the job still runs when the test, polling squeue, kills a node.
    const std::string study =
        write_study(dir, name,
                    "kind: custom\nworkload: {binary: " + workload +
                        ", sleep_s: 30}\nscale: [{nodes: 2, ranks_per_node: 1}]\n"
                        "slurm: {time: \"10\", extra: [\"--no-requeue\"]}\nmax_attempts: 1\n");
    const std::string results = (dir / ("results-" + scheduler)).string();
    const std::vector<std::string> submit = {"submit",  study,           "--scheduler",
                                             scheduler, "--results-dir", results};
    ProcessResult submitted = run_cli(submit);
    INFO(submitted.stdout_text << submitted.stderr_text);
    REQUIRE(submitted.exit_code == 0);
    auto status = status_of(study, results);
    REQUIRE(status["runs"].size() == 1);
    const std::string first_job = status["runs"][0]["job_id"];
    const std::string out_dir = status["runs"][0]["out_dir"];

    // Both ranks running: the node of the batch script goes, as in a power cut.
    const RunningJob running =
        wait_running(first_job, [&] { return count_lines(out_dir + "/starts") == 2; });
    REQUIRE_FALSE(running.batch_host.empty());
    REQUIRE(hosts_of(running.node_list).size() == 2);
    REQUIRE(cluster.kill_node(running.batch_host));
    // slurmctld finds the node silent (SlurmdTimeout, 30 s here) and, no requeue allowed,
    // ends the job; the study records it once squeue no longer has it completing.
    REQUIRE(holds_within(
        180, [&] { return status_of(study, results)["runs"][0]["state"] == "NODE_FAIL"; }));
    CHECK(sacct_field(first_job, "State") == "NODE_FAIL");
    // The node back (ReturnToService=2) and idle: only the exclusion keeps the retry off it.
    REQUIRE(cluster.restart_missing_daemons());
    REQUIRE(wait_node_state(running.batch_host, "idle", 60));

    ProcessResult resubmitted = run_cli(submit);
    INFO(resubmitted.stdout_text << resubmitted.stderr_text);
    REQUIRE(resubmitted.exit_code == 0);
    status = status_of(study, results);
    const std::string retry_job = status["runs"][0]["job_id"];
    CHECK(retry_job != first_job);
    CHECK(hosts_of(scontrol_field(retry_job, "ExcNodeList")) == hosts_of(running.node_list));
    ProcessResult waited = run_cli(
        {"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "240"},
        300'000);
    INFO(waited.stdout_text << waited.stderr_text);
    CHECK(waited.exit_code == 0);

    status = status_of(study, results);
    const auto& run = status["runs"][0];
    CHECK(run["state"] == "COMPLETED");
    CHECK(run["attempts"] == 2);
    // status's node table: each node of the lost attempt with its one node failure.
    CHECK(status["nodes"].size() == 2);
    for (const auto& node : status["nodes"]) {
      CHECK(hosts_of(running.node_list).count(node["node"].get<std::string>()) == 1);
      CHECK(node["failures"] == nlohmann::json{{"node", 1}});
    }
    auto db = scalestudy::sqlite::Database::open(results + "/" + name + ".sqlite",
                                                 scalestudy::sqlite::OpenMode::kReadOnly);
    REQUIRE(db.is_ok());
    auto attempts = db->query(
        "SELECT state, job_id, failure_class, failure_evidence FROM attempts ORDER BY attempt");
    REQUIRE(attempts.is_ok());
    REQUIRE(attempts->size() == 2);
    const auto& lost = (*attempts)[0];
    CHECK(scalestudy::sqlite::to_string(lost[0]) == "NODE_FAIL");
    CHECK(scalestudy::sqlite::to_string(lost[1]) == first_job);
    CHECK(scalestudy::sqlite::to_string(lost[2]) == "node");
    const std::string evidence = scalestudy::sqlite::to_string(lost[3]);
    CHECK(evidence.find("on " + running.node_list) != std::string::npos);
    CHECK(scalestudy::sqlite::to_string((*attempts)[1][0]) == "COMPLETED");
    CHECK(scalestudy::sqlite::to_string((*attempts)[1][1]) == retry_job);
    // Accounting: the retry ran on other nodes than the lost attempt's.
    const std::string retry_nodes = sacct_field(retry_job, "NodeList");
    CAPTURE(retry_nodes);
    CHECK(hosts_of(retry_nodes).size() == 2);
    for (const std::string& host : hosts_of(retry_nodes)) {
      CHECK(hosts_of(running.node_list).count(host) == 0);
    }
    // The retry completed once: an end of each of its ranks (a rank of the lost job on the
    // surviving node may have ended too before SLURM stopped it).
    std::ifstream ends(out_dir + "/ends");
    int retry_ends = 0;
    for (std::string line; std::getline(ends, line);) retry_ends += line == retry_job;
    CHECK(retry_ends == 2);
  }
}
