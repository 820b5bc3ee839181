// Packed allocations (`allocation: packed`, `submit --packed`) on the real local SLURM
// cluster: a whole sweep in one job whose runs are job steps. Needs root and the cluster
// scripts; skipped otherwise. Uses scalestudy-train on Fashion-MNIST where it is built (the
// fake workload otherwise, checked by outcome).
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/holding_relay.hpp"
#include "tests/support/skip.hpp"
#include "tests/support/slurm_cluster_session.hpp"
#include "tests/support/slurm_jobs.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;
namespace sqlite = scalestudy::sqlite;

namespace {

const char kLadder[] =
    "scale: [{nodes: 1, ranks_per_node: 1}, {nodes: 2, ranks_per_node: 1},"
    " {nodes: 4, ranks_per_node: 1}]\nrepeats: 2\n";

// The quickstart workload cut to 8 steps (scalestudy-train), else the fake one.
std::string ladder_workload(const fs::path& dir, bool* real) {
  const std::string train = binary_dir() + "/scalestudy-train";
  *real = fs::exists(train) && fs::exists("/usr/share/datasets/fashion-mnist");
  if (*real) {
    return "kind: strong\nworkload: {binary: " + train +
           ", model: small-cnn, dataset: fashion-mnist, data_root: "
           "/usr/share/datasets/fashion-mnist, epochs: 1, steps_per_epoch: 8, "
           "measure_warmup_steps: 2, precision: fp32, optimizer: sgd, lr: 0.05, seed: 1, "
           "threads: 1}\nglobal_batch: 64\n";
  }
  return "kind: custom\nworkload: {binary: " + write_fake_workload(dir) + ", sleep_s: 1}\n";
}

std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  auto db = sqlite::Database::open(db_path, sqlite::OpenMode::kReadOnly);
  REQUIRE_MESSAGE(db, db.status().message());
  auto rows = db->query(sql);
  REQUIRE_MESSAGE(rows, rows.status().message());
  std::vector<std::vector<std::string>> text;
  for (const auto& row : *rows) {
    std::vector<std::string> fields;
    for (const auto& value : row) fields.push_back(sqlite::to_string(value));
    text.push_back(std::move(fields));
  }
  return text;
}

// sacct's "JobID|JobName|State" rows of one job and its steps.
std::vector<std::vector<std::string>> sacct_rows(const std::string& job_id) {
  auto listed = run_process(
      {{"sacct", "-n", "--parsable2", "-j", job_id, "--format=JobID,JobName,State"}, {}, 30'000});
  REQUIRE(listed.is_ok());
  std::vector<std::vector<std::string>> rows;
  std::stringstream lines(listed->stdout_text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::stringstream split(line);
    for (std::string field; std::getline(split, field, '|');) fields.push_back(field);
    if (fields.size() == 3) rows.push_back(fields);
  }
  return rows;
}

bool is_numbered_step(const std::string& job_id) {
  size_t dot = job_id.find('.');
  return dot != std::string::npos && std::isdigit(static_cast<unsigned char>(job_id[dot + 1]));
}

// The report's form: every key, each leaf reduced to its JSON type, the points one by one;
// other lists only as lists (what they hold differs: runs of job arrays overlap on a
// shared node, packed steps do not).
nlohmann::json form_of(const nlohmann::json& value, bool top = true) {
  if (value.is_object()) {
    nlohmann::json form = nlohmann::json::object();
    for (const auto& [key, item] : value.items()) {
      if (top && key == "points") {
        for (const auto& point : item) form[key].push_back(form_of(point, false));
      } else {
        form[key] = form_of(item, false);
      }
    }
    return form;
  }
  if (value.is_array()) return "array";
  return value.is_number() ? std::string("number") : std::string(value.type_name());
}

nlohmann::json report_json(const std::string& study, const std::string& results) {
  ProcessResult shown = run_cli(
      {"report", study, "--format", "json", "--no-plots", "--results-dir", results}, 300'000);
  INFO(shown.stderr_text);
  REQUIRE(shown.exit_code == 0);
  return nlohmann::json::parse(shown.stdout_text);
}

ProcessResult run_study(const std::string& yaml, const std::string& results,
                        const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {
      "run", yaml,        "--scheduler", "slurm",      "--results-dir", results, "--poll-interval",
      "1",   "--timeout", "900",         "--no-plots", "--format",      "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult ran = run_cli(args, 960'000);
  if (ran.exit_code != 0) {  // why, ahead of the long report a failing check prints
    const auto report = nlohmann::json::parse(ran.stdout_text, nullptr, false);
    if (report.is_object() && report.contains("failed_attempts")) {
      for (const auto& attempt : report["failed_attempts"]) {
        MESSAGE("failed: " << attempt.value("run_id", "") << " attempt "
                           << attempt.value("attempt", 0) << " on "
                           << attempt.value("node_list", "") << " ["
                           << attempt.value("failure_class", "")
                           << "]: " << attempt.value("failure_evidence", ""));
      }
    }
  }
  return ran;
}

// DIR/bin/sbatch: submits with the real sbatch, then (when it succeeded) runs `on_success`,
// the job id in $out. Returns DIR/bin, for PATH.
fs::path write_sbatch_then(const fs::path& dir, const std::string& on_success) {
  auto sbatch = find_on_path("sbatch");
  REQUIRE(sbatch);
  fs::create_directories(dir / "bin");
  std::ofstream(dir / "bin" / "sbatch")
      << "#!/bin/sh\nout=$('" << *sbatch << "' \"$@\")\nstatus=$?\nprintf '%s\\n' \"$out\"\n"
      << "if [ $status -eq 0 ]; then\n"
      << on_success << "fi\nexit $status\n";
  fs::permissions(dir / "bin" / "sbatch", fs::perms::all);
  return dir / "bin";
}

// As write_sbatch_then, and then stops its caller, the submitter, with SIGSTOP.
fs::path write_stopping_sbatch(const fs::path& dir, const std::string& on_success) {
  return write_sbatch_then(dir, on_success + "  kill -STOP $PPID\n");
}

}  // namespace

TEST_CASE("the quickstart ladder packed at 1, 2 and 4 nodes x 2 repeats is one job of 6 steps") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_ladder";
  bool real = false;
  const std::string body = ladder_workload(dir, &real) + kLadder +
                           "slurm: {time: \"5\", cpus_per_task: 1}\nmax_attempts: 1\n";
  const std::string study = write_study(dir, "ladder", body);
  const std::string packed_results = (dir / "packed").string();
  ProcessResult packed = run_study(study, packed_results, {"--packed"});
  INFO(packed.stdout_text << packed.stderr_text);
  REQUIRE(packed.exit_code == 0);

  const std::string db = packed_results + "/ladder.sqlite";
  auto runs = query(db,
                    "SELECT r.run_id, r.state, r.job_id, r.nodes, p.job_step, p.node_list "
                    "FROM runs r LEFT JOIN placements p ON p.run_id = r.run_id");
  REQUIRE(runs.size() == 6);
  std::set<std::string> allocations;
  for (const auto& run : runs) {
    CAPTURE(run[0]);
    CHECK(run[1] == "COMPLETED");
    allocations.insert(run[2].substr(0, run[2].find('+')));
    CHECK(run[4].rfind(run[2].substr(0, run[2].find('+')) + ".", 0) == 0);  // its job step
    CHECK_FALSE(run[5].empty());                                            // its nodes
    if (run[3] == "1") CHECK(run[5].find('[') == std::string::npos);
  }
  REQUIRE(allocations.size() == 1);  // exactly one job id
  int steps = 0;
  for (const auto& row : sacct_rows(*allocations.begin())) {
    if (!is_numbered_step(row[0])) continue;
    ++steps;
    CHECK(row[2] == "COMPLETED");
  }
  CHECK(steps == 6);

  // The same study unpacked (job arrays): the report has the same form.
  const std::string unpacked_results = (dir / "unpacked").string();
  ProcessResult unpacked = run_study(study, unpacked_results);
  INFO(unpacked.stdout_text << unpacked.stderr_text);
  REQUIRE(unpacked.exit_code == 0);
  CHECK(form_of(report_json("ladder", packed_results)) ==
        form_of(report_json("ladder", unpacked_results)));
  MESSAGE("workload: " << std::string(real ? "scalestudy-train" : "fake"));
}

// The allocation's own Start and End (sacct, seconds since the epoch) and its steps'
// "JobName|NodeList|Start|End".
struct AllocationTimes {
  long long elapsed_s = 0;
  std::vector<std::vector<std::string>> steps;
};
AllocationTimes allocation_times(const std::string& job_id) {
  auto listed = run_process({{"sacct", "-n", "--parsable2", "-j", job_id,
                              "--format=JobID,JobName,NodeList,Start,End,ElapsedRaw"},
                             {},
                             30'000});
  REQUIRE(listed.is_ok());
  AllocationTimes times;
  std::stringstream lines(listed->stdout_text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::stringstream split(line);
    for (std::string field; std::getline(split, field, '|');) fields.push_back(field);
    if (fields.size() != 6) continue;
    if (fields[0] == job_id) times.elapsed_s = std::stoll(fields[5]);
    if (is_numbered_step(fields[0]))
      times.steps.push_back({fields[1], fields[2], fields[3], fields[4]});
  }
  return times;
}

TEST_CASE("pack policy concurrent: the ladder's steps side by side on disjoint nodes, sooner") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_policy";
  fs::remove_all(dir);
  // Sleeping steps that print a throughput: the policies differ in how many rounds of steps
  // they need (serial 6, concurrent 4: 4, 4, 2+2, 1+1), whatever the machine's speed.
  fs::create_directories(dir);
  const fs::path workload = dir / "sleeper.sh";
  std::ofstream(workload) << "#!/bin/sh\nsleep 4\necho \"throughput 100 samples/s\"\n";
  fs::permissions(workload, fs::perms::all);
  const std::string body = "kind: custom\nworkload: {binary: " + workload.string() + "}\n" +
                           kLadder +
                           "allocation: packed\nslurm: {time: \"5\"}\nmax_attempts: 1\n"
                           "metrics:\n  throughput: {pattern: 'throughput ([0-9]+)', role: "
                           "throughput}\n";
  std::map<std::string, long long> elapsed;
  for (const std::string policy : {"serial", "concurrent"}) {
    CAPTURE(policy);
    const std::string study =
        write_study(dir / policy, "ladder_" + policy, body + "pack: {policy: " + policy + "}\n");
    const std::string results = (dir / policy / "results").string();
    ProcessResult ran = run_study(study, results);
    INFO(ran.stdout_text << ran.stderr_text);
    REQUIRE(ran.exit_code == 0);
    auto jobs =
        query(results + "/ladder_" + policy + ".sqlite", "SELECT DISTINCT job_id FROM runs");
    REQUIRE(jobs.size() == 6);
    const std::string allocation = jobs[0][0].substr(0, jobs[0][0].find('+'));
    AllocationTimes times = allocation_times(allocation);
    REQUIRE(times.steps.size() == 6);
    elapsed[policy] = times.elapsed_s;
    // Steps that ran at the same time had disjoint nodes; only the concurrent policy has any.
    int side_by_side = 0;
    for (size_t i = 0; i < times.steps.size(); ++i) {
      for (size_t j = i + 1; j < times.steps.size(); ++j) {
        const auto& a = times.steps[i];
        const auto& b = times.steps[j];
        if (!(a[2] < b[3] && b[2] < a[3])) continue;  // ISO times compare as text
        ++side_by_side;
        std::set<std::string> shared;
        for (const std::string& host : hosts_of(a[1])) {
          if (hosts_of(b[1]).count(host)) shared.insert(host);
        }
        CHECK_MESSAGE(shared.empty(), a[0] << " on " << a[1] << " and " << b[0] << " on " << b[1]);
      }
    }
    const nlohmann::json report = report_json("ladder_" + policy, results);
    if (policy == "serial") {
      CHECK(side_by_side == 0);
      CHECK(report["co_running"].empty());
    } else {
      CHECK(side_by_side >= 2);
      CHECK(report["co_running"].size() >= 2);
    }
  }
  MESSAGE("allocation wall time: serial " << elapsed["serial"] << " s, concurrent "
                                          << elapsed["concurrent"] << " s");
  CHECK(elapsed["concurrent"] < elapsed["serial"]);
}

TEST_CASE("a submitter killed at each point of a packed submit: the rerun runs each run once") {
  REQUIRE_CLUSTER();
  for (const char* point : {"submit.claimed", "submit.prepared", "submit.recorded",
                            "submit.launched", "submit.recorded:2"}) {
    const std::string point_name = point;
    CAPTURE(point_name);
    std::string dir_name = point;
    for (char& c : dir_name) c = c == '.' || c == ':' ? '_' : c;
    fs::path dir = cluster.work_dir() / ("packed_fault_" + dir_name);
    const std::string study = write_study(
        dir, "packedkill",
        "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
            ", sleep_s: 1}\nscale: [{nodes: 1, ranks_per_node: 1}, {nodes: 2, "
            "ranks_per_node: 1}]\nrepeats: 2\nallocation: packed\nslurm: {time: \"5\"}\n");
    const std::string results = (dir / "results").string();
    ProcessResult killed =
        run_cli_with({"submit", study, "--scheduler", "slurm", "--results-dir", results},
                     {{"SCALESTUDY_FAULT", point}});
    INFO(killed.stdout_text << killed.stderr_text);
    CHECK((killed.exit_code == -1 && killed.signal == SIGKILL));
    // Rerun: submit and wait (the fake workload writes no run database to report on),
    // again while runs are left: a run recorded under a job that never started it (killed
    // before its mark) ends CANCELLED and goes into the next allocation.
    ProcessResult waited;
    for (int round = 0; round < 3 && waited.exit_code != 0; ++round) {
      ProcessResult rerun =
          run_cli({"submit", study, "--scheduler", "slurm", "--results-dir", results});
      INFO(rerun.stdout_text << rerun.stderr_text);
      CHECK(rerun.exit_code == 0);
      waited = run_cli({"wait", "packedkill", "--results-dir", results, "--poll-interval", "1",
                        "--timeout", "240"},
                       300'000);
    }
    INFO(waited.stdout_text << waited.stderr_text);
    CHECK(waited.exit_code == 0);
    const std::string db = results + "/packedkill.sqlite";
    for (const auto& run : query(db, "SELECT run_id, state, world_size, out_dir FROM runs")) {
      CAPTURE(run[0]);
      CHECK(run[1] == "COMPLETED");
      CHECK(query(db, "SELECT COUNT(*) FROM attempts WHERE state = 'COMPLETED' AND run_id = '" +
                          run[0] + "'")[0][0] == "1");
      // Exactly one execution: one line per rank.
      CHECK(count_lines((fs::path(results) / run[3] / "executions.txt").string()) ==
            std::stoi(run[2]));
    }
  }
}

TEST_CASE("a packed study past its time limit resumes its checkpointed runs in the next one") {
  REQUIRE_CLUSTER();
  const std::string train = binary_dir() + "/scalestudy-train";
  if (!fs::exists(train)) {
    SKIP_UNLESS_INSTALLED("no scalestudy-train (workloads not built)");
  }
  // Two runs of 60 steps with the workload's test pause of 1.5 s after each (about 3 minutes
  // of work in all) under 1 minute each: one 3-minute allocation (the two limits and a
  // minute for the stop lead) whose wrapper stops the running step 45 s before the limit.
  // That run checkpoints (exit 75); it and any run not started go into the next allocation.
  fs::path dir = cluster.work_dir() / "packed_resume";
  const std::string study = write_study(
      dir, "packedresume",
      "kind: custom\nworkload: {binary: " + train +
          ", model: small-cnn, dataset: synthetic, val_samples: 64, epochs: 1, "
          "steps_per_epoch: 60, measure_warmup_steps: 2, optimizer: sgd, lr: 0.02, seed: 3, "
          "log_interval: 0, threads: 1, test_step_delay_ms: 1500}\nglobal_batch: 16\n"
          "repeats: 2\nallocation: packed\nslurm: {time: \"1\"}\nmax_attempts: 6\n");
  const std::string results = (dir / "results").string();
  ProcessResult ran = run_study(study, results);
  INFO(ran.stdout_text << ran.stderr_text);
  CHECK(ran.exit_code == 0);

  const std::string db = results + "/packedresume.sqlite";
  std::set<std::string> allocations;
  for (const auto& row : query(db, "SELECT job_id FROM attempts")) {
    allocations.insert(row[0].substr(0, row[0].find('+')));
  }
  MESSAGE(allocations.size() << " allocations");
  CHECK(allocations.size() >= 2);
  for (const auto& run : query(db, "SELECT run_id, state, out_dir FROM runs")) {
    CAPTURE(run[0]);
    CHECK(run[1] == "COMPLETED");
    auto attempts = query(db,
                          "SELECT a.state, p.job_step, a.failure_class FROM attempts a LEFT "
                          "JOIN placements "
                          "p ON p.run_id = a.run_id AND p.attempt = a.attempt WHERE "
                          "a.run_id = '" +
                              run[0] + "' ORDER BY a.attempt");
    int started = 0, completed = 0;
    for (const auto& attempt : attempts) {
      CAPTURE(attempt[0]);
      started += !attempt[1].empty();
      completed += attempt[0] == "COMPLETED";
      // Stopped near the limit (checkpointed), or never started: nothing failed.
      CHECK((attempt[0] == "COMPLETED" || attempt[0] == "PREEMPTED" || attempt[0] == "CANCELLED" ||
             attempt[0] == "TIMEOUT"));
      // One that ran and stopped checkpointed is class time (issue 64), resumed.
      if (!attempt[1].empty() && attempt[0] != "COMPLETED") CHECK(attempt[2] == "time");
    }
    CHECK(completed == 1);
    // Every attempt that ran trained on from the last one's checkpoint: the run database
    // counts them as attempts of one training, none from scratch.
    auto counted = query((fs::path(results) / run[2] / "rank0.sqlite").string(),
                         "SELECT value FROM summary WHERE name = 'attempts'");
    REQUIRE(counted.size() == 1);
    CHECK(std::stod(counted[0][0]) == started);
  }
}

TEST_CASE("a packed study completes via slurmrest, each run a step of one job") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_rest";
  const std::string study = write_study(
      dir, "packedrest",
      "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
          ", sleep_s: 1}\nscale: [{nodes: 1, ranks_per_node: 1}, {nodes: 2, ranks_per_node: "
          "1}]\nrepeats: 2\nslurm: {time: \"5\"}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  submit_then_wait(study, results, {"--scheduler", "slurmrest", "--packed"});
  const std::string db = results + "/packedrest.sqlite";
  std::set<std::string> allocations;
  for (const auto& run : query(db,
                               "SELECT r.state, r.job_id, p.job_step, p.node_list FROM runs "
                               "r LEFT JOIN placements p ON p.run_id = r.run_id")) {
    CHECK(run[0] == "COMPLETED");
    allocations.insert(run[1].substr(0, run[1].find('+')));
    CHECK(run[2].rfind(run[1].substr(0, run[1].find('+')) + ".", 0) == 0);
    CHECK_FALSE(run[3].empty());
  }
  CHECK(allocations.size() == 1);
}

// The `small` partition's MaxTime is 5 minutes (slurm/cluster): six 2-minute runs ask for
// 12, more than twice that.
TEST_CASE("a packed sweep longer than the partition's MaxTime is split into allocations that fit") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_split";
  fs::remove_all(dir);
  const std::string body =
      "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
      ", sleep_s: 1}\nscale: [{nodes: 1, ranks_per_node: 1}, {nodes: 2, ranks_per_node: 1}]\n"
      "repeats: 3\nallocation: packed\npack: {policy: serial}\nmax_attempts: 1\n";
  const std::string study =
      write_study(dir, "packedsplit", body + "slurm: {time: \"2\", partition: small}\n");
  const std::string results = (dir / "results").string();
  ProcessResult planned = run_cli({"plan", study, "--results-dir", results});
  INFO(planned.stdout_text << planned.stderr_text);
  REQUIRE(planned.exit_code == 0);
  CHECK(planned.stdout_text.find("packed, policy serial: 3 allocations") != std::string::npos);
  CHECK(planned.stdout_text.find("allocation 3: ") != std::string::npos);

  submit_then_wait(study, results, {"--scheduler", "slurm"});
  const std::string db = results + "/packedsplit.sqlite";
  std::set<std::string> allocations;
  for (const auto& run : query(db, "SELECT run_id, state, job_id, attempts FROM runs")) {
    CAPTURE(run[0]);
    CHECK(run[1] == "COMPLETED");
    CHECK(run[3] == "1");
    allocations.insert(run[2].substr(0, run[2].find('+')));
  }
  CHECK(allocations.size() == 3);
  for (const std::string& allocation : allocations) {
    // slurmdbd may take a moment to hold a job that has just ended, and may first list it
    // with its partition and time limit still empty ("|").
    std::string limits;
    for (int tries = 0; tries < 30 && (limits.empty() || limits[0] == '|'); ++tries) {
      if (tries > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
      auto listed = run_process(
          {{"sacct", "-n", "-X", "--parsable2", "-j", allocation, "--format=Partition,Timelimit"},
           {},
           30'000});
      REQUIRE(listed.is_ok());
      limits = listed->stdout_text;
    }
    CAPTURE(limits);
    CHECK(limits.rfind("small|00:05:00", 0) == 0);  // 2 x 2 minutes and the stop lead
  }

  // A run longer than the MaxTime alone is refused before anything is submitted.
  const std::string too_long =
      write_study(dir / "long", "packedlong", body + "slurm: {time: \"8\", partition: small}\n");
  const std::string long_results = (dir / "long" / "results").string();
  ProcessResult refused =
      run_cli({"submit", too_long, "--scheduler", "slurm", "--results-dir", long_results});
  INFO(refused.stdout_text << refused.stderr_text);
  CHECK(refused.exit_code == 1);
  CHECK(refused.stderr_text.find("longer than the 5 min MaxTime of partition small") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(long_results + "/packedlong.sqlite"));
}

TEST_CASE("a submitter stopped for 30 s right after sbatch: no run is skipped or charged") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_stopped";
  fs::remove_all(dir);
  // The submitter is continued 30 s later: the allocation starts meanwhile, before any of
  // its runs is recorded.
  const fs::path bin = write_stopping_sbatch(
      dir, "  caller=$PPID\n  (sleep 30; kill -CONT $caller) </dev/null >/dev/null 2>&1 &\n");
  const std::string study =
      write_study(dir, "packedstopped",
                  "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
                      ", sleep_s: 1}\nscale: [{nodes: 1, ranks_per_node: 1}, {nodes: 2, "
                      "ranks_per_node: 1}]\nrepeats: 2\nallocation: packed\nslurm: {time: \"5\"}\n"
                      "max_attempts: 1\n");
  const std::string results = (dir / "results").string();
  const auto started = std::chrono::steady_clock::now();
  submit_then_wait(study, results, {"--scheduler", "slurm"},
                   {{"PATH", bin.string() + ":" + std::getenv("PATH")}});
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::seconds(30));  // stopped
  const std::string db = results + "/packedstopped.sqlite";
  std::set<std::string> allocations;
  for (const auto& run : query(db, "SELECT run_id, state, attempts, job_id, out_dir FROM runs")) {
    CAPTURE(run[0]);
    CHECK(run[1] == "COMPLETED");
    CHECK(run[2] == "1");
    const std::string allocation = run[3].substr(0, run[3].find('+'));
    allocations.insert(allocation);
    CHECK_FALSE(fs::exists(fs::path(results) / run[4] / ("packed-" + allocation + ".not-reached")));
  }
  REQUIRE(allocations.size() == 1);
  // The wrapper started every run: none was left for want of a record.
  int outputs = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(results) / "packedstopped" / "arrays")) {
    if (entry.path().extension() != ".out") continue;
    ++outputs;
    const std::string output = read_file(entry.path().string());
    CAPTURE(output);
    // It started while the submitter was stopped, and waited for the records.
    CHECK(output.find("waiting for the study database to record 4 of 4 runs") != std::string::npos);
    CHECK(output.find("not run here") == std::string::npos);
  }
  CHECK(outputs == 1);
}

namespace {

// The wrapper output of packed allocation `job` under `arrays`, once it holds `text`;
// "" when it does not within two minutes.
std::string wrapper_output_with(const fs::path& arrays, const std::string& job,
                                const std::string& text) {
  for (int tries = 0; tries < 240; ++tries) {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(arrays, error)) {
      const std::string name = entry.path().filename().string();
      if (name.size() < job.size() + 5 ||
          name.rfind("-" + job + ".out") != name.size() - job.size() - 5)
        continue;
      const std::string output = read_file(entry.path().string());
      if (output.find(text) != std::string::npos) return output;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return "";
}

bool job_in_queue(const std::string& job) {
  auto listed = run_process({{"squeue", "-h", "-j", job, "-o", "%i"}, {}, 10'000});
  return listed.is_ok() && listed->succeeded() && !listed->stdout_text.empty();
}

}  // namespace

// Three allocations end before their one run starts: each time the submitter is stopped
// right after sbatch, so the wrapper waits for the run's record, and is told its time is
// up (USR1, as near its limit). The run is not charged: with max_attempts 1 a charged
// attempt would leave it failed for good.
TEST_CASE("a run not reached in three allocations completes in a fourth with one attempt") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_not_reached";
  fs::remove_all(dir);
  // The test continues the submitter once the allocation has ended; it learns the job and
  // the submitter's pid from `stopped`.
  const std::string stopped = (dir / "stopped").string();
  const fs::path bin =
      write_stopping_sbatch(dir, "  printf '%s %s\\n' $PPID \"${out%%;*}\" >'" + stopped +
                                     ".tmp'\n  mv '" + stopped + ".tmp' '" + stopped + "'\n");
  const std::string study =
      write_study(dir, "notreached",
                  "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
                      ", sleep_s: 1}\nallocation: packed\nslurm: {time: \"5\"}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  const fs::path arrays = fs::path(results) / "notreached" / "arrays";
  for (int round = 1; round <= 3; ++round) {
    CAPTURE(round);
    fs::remove(stopped);
    ProcessResult submitted;
    std::thread submitter([&] {
      submitted = run_cli_with({"submit", study, "--scheduler", "slurm", "--results-dir", results},
                               {{"PATH", bin.string() + ":" + std::getenv("PATH")}}, 300'000);
    });
    int pid = 0;
    std::string job;
    for (int tries = 0; tries < 120 && job.empty(); ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      std::ifstream(stopped) >> pid >> job;
    }
    REQUIRE_MESSAGE(!job.empty(), "the submitter never reached sbatch");
    const bool waiting =
        !wrapper_output_with(arrays, job, "waiting for the study database to record").empty();
    CHECK(waiting);
    run_process({{"scancel", "-b", "-s", "USR1", job}, {}, 10'000});
    for (int tries = 0; tries < 120 && job_in_queue(job); ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    kill(pid, SIGCONT);
    submitter.join();
    INFO(submitted.stdout_text << submitted.stderr_text);
    REQUIRE(submitted.exit_code == 0);
    REQUIRE(waiting);
    // Reconciled (once the accounting database has the allocation's end): waiting again,
    // no attempt used, never FAILED.
    nlohmann::json run;
    for (int tries = 0; tries < 60; ++tries) {
      const nlohmann::json status = status_of(study, results);
      REQUIRE(status["runs"].size() == 1);
      run = status["runs"][0];
      if (run["state"] != "SUBMITTED" && run["state"] != "PENDING") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    INFO(run.dump());
    CHECK(run["state"] == "PLANNED");
    CHECK(run["attempts"] == 0);
    CHECK(run["reason"].get<std::string>().find("not reached in allocation " + job) !=
          std::string::npos);
  }
  submit_then_wait(study, results, {"--scheduler", "slurm"});
  const std::string db = results + "/notreached.sqlite";
  CHECK(query(db, "SELECT state, attempts FROM runs") ==
        std::vector<std::vector<std::string>>{{"COMPLETED", "1"}});
  CHECK(query(db, "SELECT state FROM attempts") ==
        std::vector<std::vector<std::string>>{{"COMPLETED"}});
}

// Issue 53's packed-allocation faults, each kept to seconds of SLURM time: tiny sleeping
// runs, USR1 and the limit brought forward by hand instead of waited for.
namespace {

// A study of `repeats` 1-node runs of the fake workload under `workload` (its flags).
std::string fault_study(const fs::path& dir, const std::string& name, const std::string& workload,
                        int repeats, const std::string& rest = "") {
  return write_study(dir, name,
                     "kind: custom\nworkload: {binary: " + write_fake_workload(dir) + ", " +
                         workload + "}\nrepeats: " + std::to_string(repeats) +
                         "\nallocation: packed\nslurm: {time: \"5\"}\nmax_attempts: 1\n" + rest);
}

ProcessResult submit_packed(const std::string& study, const std::string& results,
                            const std::map<std::string, std::string>& environment = {},
                            const std::string& scheduler = "slurm") {
  return run_cli_with({"submit", study, "--scheduler", scheduler, "--results-dir", results},
                      environment, 180'000);
}

// The one allocation the study's runs were submitted to.
std::string allocation_of(const std::string& db) {
  std::set<std::string> allocations;
  for (const auto& row : query(db, "SELECT job_id FROM runs WHERE job_id IS NOT NULL")) {
    allocations.insert(row[0].substr(0, row[0].find('+')));
  }
  REQUIRE(allocations.size() == 1);
  return *allocations.begin();
}

// The allocation run `run_id` was last submitted to.
std::string allocation_of_run(const std::string& db, const std::string& run_id) {
  const std::string job_id =
      query(db, "SELECT job_id FROM runs WHERE run_id = '" + run_id + "'")[0][0];
  return job_id.substr(0, job_id.find('+'));
}

void wait_until_gone(const std::string& job, int seconds) {
  for (int tries = 0; tries < seconds * 2 && job_in_queue(job); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// SLURM holds a requeued job back a while (its BeginTime): lets it start again now, but
// seconds after the requeue. slurmd refuses a launch whose credential is from the second in
// which the job's previous credential was revoked ("Job credential revoked", the job then
// fails): a start 0.6 s after the requeue did so on a loaded host.
void start_requeued_now(const std::string& job) {
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (int tries = 0; tries < 20; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto updated =
        run_process({{"scontrol", "update", "JobId=" + job, "StartTime=now"}, {}, 10'000});
    if (updated.is_ok() && updated->succeeded()) break;
  }
}

// Each run's "run_id, state, attempts" once status has reconciled the allocation's end
// (the accounting database may take a moment).
std::vector<std::vector<std::string>> settled_runs(const std::string& study,
                                                   const std::string& results) {
  const std::string db = results + "/" + fs::path(study).stem().string() + ".sqlite";
  std::vector<std::vector<std::string>> runs;
  for (int tries = 0; tries < 60; ++tries) {
    status_of(study, results);
    runs = query(db, "SELECT run_id, state, attempts FROM runs ORDER BY run_id");
    bool settled = true;
    for (const auto& run : runs) {
      settled = settled && run[1] != "SUBMITTED" && run[1] != "PENDING" && run[1] != "RUNNING";
    }
    if (settled) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  for (const auto& run : runs) MESSAGE(run[0] << " " << run[1] << " attempts " << run[2]);
  return runs;
}

int count_in(const std::vector<std::vector<std::string>>& runs, const std::string& state,
             const std::string& attempts) {
  return static_cast<int>(std::count_if(runs.begin(), runs.end(), [&](const auto& run) {
    return run[1] == state && run[2] == attempts;
  }));
}

// How many of the job's numbered steps sacct lists in `state`.
int steps_in(const std::string& job, const std::string& state) {
  int steps = 0;
  for (const auto& row : sacct_rows(job)) steps += is_numbered_step(row[0]) && row[2] == state;
  return steps;
}

}  // namespace

// Item 1: the running step ignores SIGTERM and outlasts the job, which SLURM kills at its
// limit (brought forward to 1 minute): the wrapper has no last second to mark anything.
TEST_CASE("a step ignoring SIGTERM past the limit: the runs it kept waiting cost no attempt") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_slow_stop";
  fs::remove_all(dir);
  const std::string study =
      fault_study(dir, "slowstop", "sleep_s: 90, ignore_term: 1", 3, "pack: {policy: serial}\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string job = allocation_of(results + "/slowstop.sqlite");
  REQUIRE_FALSE(
      wrapper_output_with(fs::path(results) / "slowstop" / "arrays", job, "step ").empty());
  run_process({{"scancel", "-b", "-s", "USR1", job}, {}, 10'000});
  run_process({{"scontrol", "update", "JobId=" + job, "TimeLimit=1"}, {}, 10'000});
  wait_until_gone(job, 120);
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "PLANNED", "0") == 2);  // never started: free
  CHECK(runs.size() == 3);
}

// Item 2: squeue fails inside the job (as when missing from its PATH); the wrapper takes
// the job's end from its start and limit and runs every run.
TEST_CASE("squeue failing inside a packed job: every run still runs, once") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_no_squeue";
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  auto squeue = find_on_path("squeue");
  REQUIRE(squeue);
  std::ofstream(dir / "bin" / "squeue")
      << "#!/bin/sh\n[ -n \"$SLURM_JOB_ID\" ] && exit 127\nexec '" << *squeue << "' \"$@\"\n";
  fs::permissions(dir / "bin" / "squeue", fs::perms::all);
  const std::string study = fault_study(dir, "nosqueue", "sleep_s: 1", 2);
  const std::string results = (dir / "results").string();
  ProcessResult submitted =
      submit_packed(study, results, {{"PATH", (dir / "bin").string() + ":" + std::getenv("PATH")}});
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  wait_until_gone(allocation_of(results + "/nosqueue.sqlite"), 120);
  CHECK(count_in(settled_runs(study, results), "COMPLETED", "1") == 2);
}

// Item 3: the submitter dies between sbatch and its records; the wrapper waits 15 s for
// them (SCALESTUDY_PACKED_RECORD_WAIT_S), not until its limit, and leaves the runs for a
// later submit at no attempt's cost.
TEST_CASE("a submitter killed right after sbatch: its allocation ends soon, the runs uncharged") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_killed_submitter";
  fs::remove_all(dir);
  const std::string job_file = (dir / "job").string();
  const fs::path bin = write_stopping_sbatch(
      dir, "  printf '%s\\n' \"${out%%;*}\" >'" + job_file + "'\n  kill -KILL $PPID\n");
  const std::string study = fault_study(dir, "killedsubmitter", "sleep_s: 1", 2);
  const std::string results = (dir / "results").string();
  const auto started = std::chrono::steady_clock::now();
  submit_packed(study, results,
                {{"PATH", bin.string() + ":" + std::getenv("PATH")},
                 {"SCALESTUDY_PACKED_RECORD_WAIT_S", "15"}});
  std::string job;
  std::ifstream(job_file) >> job;
  REQUIRE_FALSE(job.empty());
  wait_until_gone(job, 60);
  const bool ended = !job_in_queue(job);
  MESSAGE("allocation " << job << " ended after "
                        << std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::steady_clock::now() - started)
                               .count()
                        << " s");
  CHECK(ended);
  if (!ended) run_process({{"scancel", job}, {}, 10'000});
  submit_then_wait(study, results, {"--scheduler", "slurm"});
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "COMPLETED", "1") == 2);
  for (const auto& run : query(results + "/killedsubmitter.sqlite", "SELECT out_dir FROM runs")) {
    CHECK(count_lines((fs::path(results) / run[0] / "executions.txt").string()) == 1);
  }
}

// Item 4: two runs asking for different memory go to two allocations, each asking for its
// run's (the budget gate counts the same plans).
TEST_CASE("packed runs with different --mem get allocations of their own memory") {
  REQUIRE_CLUSTER();
  fs::path dir = cluster.work_dir() / "packed_memory";
  fs::remove_all(dir);
  std::vector<scalestudy::sched::PreparedRun> runs;
  for (const long long memory_mb : {300LL, 600LL}) {
    const std::string run_id = "mem" + std::to_string(memory_mb);
    scalestudy::sched::PreparedRun run;
    run.spec.run_id = run_id;
    run.spec.study = "packedmemory";
    run.spec.slurm.memory_mb = memory_mb;
    run.spec.slurm.time_limit_minutes = 2;
    run.out_dir = (dir / run_id).string();
    run.script_path = run.out_dir + "/job.sbatch";
    fs::create_directories(run.out_dir);
    std::ofstream(run.script_path) << "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --mem=" << memory_mb
                                   << "M\nsrun $SCALESTUDY_STEP_OPTIONS true\n";
    runs.push_back(std::move(run));
  }
  scalestudy::sched::SchedulerContext context;
  context.packed = true;
  context.array_script_dir = (dir / "arrays").string();
  auto scheduler = scalestudy::sched::make_scheduler("slurm", context);
  REQUIRE(scheduler);
  scalestudy::sched::SubmitCallbacks callbacks;
  callbacks.launching = [](const scalestudy::sched::Submission&) {
    return scalestudy::Status::ok();
  };
  auto submitted = (*scheduler)->submit(runs, callbacks);
  REQUIRE_MESSAGE(submitted, submitted.status().message());
  std::map<std::string, std::string> memory_of_job;  // allocation -> its ReqMem
  for (const auto& submission : *submitted) {
    const std::string job = submission.job_id.substr(0, submission.job_id.find('+'));
    // slurmdbd may list a job just submitted without it ("", "16?").
    auto& memory = memory_of_job[job];
    for (int tries = 0; tries < 60 && (memory.empty() || memory.back() == '?'); ++tries) {
      if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
      auto shown = run_process(
          {{"sacct", "-n", "-X", "--parsable2", "-j", job, "--format=ReqMem"}, {}, 10'000});
      REQUIRE(shown.is_ok());
      memory = shown->stdout_text.substr(0, shown->stdout_text.find('\n'));
    }
    MESSAGE(submission.job_id << ": ReqMem " << memory);
  }
  CHECK(memory_of_job.size() == 2);
  std::set<std::string> memories;
  for (const auto& [job, memory] : memory_of_job) memories.insert(memory);
  CHECK(memories == std::set<std::string>{"300M", "600M"});
}

namespace {

// Item 5: SLURM requeues the job (as after a node failure) once two runs completed: they are
// not run again, the third runs, nothing is charged twice. Polls while SLURM holds the
// requeued job back see the step the requeue ended (sacct: CANCELLED beside the REQUEUED
// job for seconds; slurmrestd: beside the job's next run too, until it starts): the run
// is to start again, not over.
void requeue_after_two_completed(const std::string& scheduler) {
  fs::path dir = ClusterSession::get().work_dir() / ("packed_requeue_" + scheduler);
  fs::remove_all(dir);
  const std::string study =
      fault_study(dir, "requeued", "sleep_s: 4", 3, "pack: {policy: serial}\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results, {}, scheduler);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string db = results + "/requeued.sqlite";
  const std::string job = allocation_of(db);
  for (int tries = 0; tries < 120 && steps_in(job, "COMPLETED") < 2; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  REQUIRE(steps_in(job, "COMPLETED") >= 2);
  auto requeued = run_process({{"scontrol", "requeue", job}, {}, 10'000});
  REQUIRE(requeued.is_ok());
  CHECK(requeued->succeeded());
  for (int polls = 0; polls < 6; ++polls) {
    status_of(study, results);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  for (const auto& run : query(db, "SELECT run_id, state, attempts FROM runs")) {
    MESSAGE("after the requeue: " << run[0] << " " << run[1] << " attempts " << run[2]);
    CHECK(run[1] != "CANCELLED");
    CHECK(run[1] != "FAILED");
  }
  start_requeued_now(job);
  wait_until_gone(job, 120);
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "COMPLETED", "1") == 3);
  CHECK(query(db, "SELECT COUNT(*) FROM attempts WHERE state <> 'COMPLETED'")[0][0] == "0");
  int executions = 0;
  for (const auto& run : query(db, "SELECT out_dir FROM runs")) {
    executions += count_lines((fs::path(results) / run[0] / "executions.txt").string());
  }
  MESSAGE(executions << " executions of 3 runs");
  CHECK(executions <= 4);  // the third may have started before the requeue
}

}  // namespace

TEST_CASE("a packed job requeued after two runs completed runs only the rest") {
  REQUIRE_CLUSTER();
  requeue_after_two_completed("slurm");
}

TEST_CASE("a packed job requeued after two runs completed runs only the rest, via slurmrest") {
  REQUIRE_CLUSTER();
  requeue_after_two_completed("slurmrest");
}

namespace {

// Item 6: one of three runs side by side is cancelled; the other two finish, uncharged by
// it. A 3-node run first (1 s) sizes the allocation for the three 1-node runs (20 s). The
// wrapper stops the cancelled run's step: slurmrestd cannot cancel one step (DELETE of
// job J.S ends the whole job, as seen on this cluster's slurmrestd 22.05).
void cancel_one_of_three_running(const std::string& scheduler) {
  fs::path dir = ClusterSession::get().work_dir() / ("packed_cancel_one_" + scheduler);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path workload = dir / "sized_sleeper.sh";
  std::ofstream(workload)
      << "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out-dir ] && out=$2; shift; done\n"
         "echo \"$SLURM_JOB_ID\" >>\"$out/executions.txt\"\n"
         "if [ \"${SLURM_STEP_NUM_NODES:-1}\" -gt 1 ]; then sleep 1; else sleep 20; fi\n";
  fs::permissions(workload, fs::perms::all);
  const std::string study = write_study(
      dir, "cancelone",
      "kind: custom\nworkload: {binary: " + workload.string() +
          "}\nscale: [{nodes: 1, ranks_per_node: 1}, {nodes: 3, ranks_per_node: 1}]\n"
          "repeats: 3\nallocation: packed\npack: {policy: concurrent}\nslurm: {time: \"5\"}\n"
          "max_attempts: 1\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results, {}, scheduler);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string db = results + "/cancelone.sqlite";
  const std::string job = allocation_of(db);
  int running = 0;
  for (int tries = 0; tries < 120 && running < 3; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto listed = run_process({{"squeue", "-h", "-s", "-j", job, "-o", "%i"}, {}, 10'000});
    running = 0;
    std::stringstream lines(listed->stdout_text);
    for (std::string line; std::getline(lines, line);) running += is_numbered_step(line);
  }
  REQUIRE(running == 3);
  const std::string cancelled =
      query(db, "SELECT run_id FROM runs WHERE nodes = 1 ORDER BY run_id LIMIT 1")[0][0];
  ProcessResult cancel =
      run_cli({"cancel", "cancelone", "--run", cancelled, "--results-dir", results});
  INFO(cancel.stdout_text << cancel.stderr_text);
  CHECK(cancel.exit_code == 0);
  wait_until_gone(job, 120);
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "COMPLETED", "1") == 5);
  CHECK(query(db, "SELECT state, attempts FROM runs WHERE run_id = '" + cancelled + "'") ==
        std::vector<std::vector<std::string>>{{"CANCELLED", "1"}});
  // Its step was stopped, not left to finish (the sleeper sleeps 20 s on one node). On 24.11
  // and 26.05 scancel may kill a step through its slurmd before slurmctld marks it
  // ("job_step_signal: ... not found" in slurmctld's log): accounting then has the step
  // FAILED with the kill's status (9:0 on 24.11, 137:0 on 26.05), not CANCELLED.
  std::string step_id;
  for (const auto& row : sacct_rows(job)) {
    if (is_numbered_step(row[0]) && row[1] == cancelled) step_id = row[0];
  }
  auto ended = run_process(
      {{"sacct", "-n", "--parsable2", "-j", step_id, "--format=State,ElapsedRaw"}, {}, 30'000});
  REQUIRE(ended.is_ok());
  const std::string step_state = ended->stdout_text.substr(0, ended->stdout_text.find('|'));
  CAPTURE(ended->stdout_text);
  CHECK((step_state.rfind("CANCELLED", 0) == 0 || step_state == "FAILED"));
  CHECK(std::stoi(ended->stdout_text.substr(ended->stdout_text.find('|') + 1)) < 20);
}

}  // namespace

TEST_CASE("cancelling one of three co-running packed runs leaves the other two running") {
  REQUIRE_CLUSTER();
  cancel_one_of_three_running("slurm");
}

TEST_CASE("cancelling one of three co-running packed runs via slurmrest leaves the other two") {
  REQUIRE_CLUSTER();
  cancel_one_of_three_running("slurmrest");
}

// Issue 64 in a packed allocation: of three runs, one raises on its first step (class
// program, tried once), one stops making progress (scalestudy-launch's watchdog stops it
// with its stack: class hang, retried once in an allocation that leaves its node out), and
// the third completes; neither failure costs the others anything.
TEST_CASE("a packed allocation whose runs fail each way: each by its class, the rest unharmed") {
  REQUIRE_CLUSTER();
  const fs::path dir = cluster.work_dir() / "packed_fail_classes";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script = dir / "modes.py";
  std::ofstream(script)
      << "#!/usr/bin/python3\nimport sys, time\n"
         "mode = sys.argv[sys.argv.index('--mode') + 1]\n"
         "print('step 1 loss 2.30', flush=True)\n"
         "if mode == 'raise':\n    raise ValueError('bad shard 3')\n"
         "def wait_for_shard_that_never_comes():\n    while True:\n        time.sleep(1)\n"
         "if mode == 'hang':\n    wait_for_shard_that_never_comes()\n"
         "print('step 2 loss 2.10', flush=True)\n";
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  const std::string study = write_study(
      dir, "failclasses",
      "kind: custom\nworkload: {binary: " + script.string() +
          "}\nmatrix: {mode: [raise, hang, fine]}\nlauncher: torchrun\nallocation: packed\n"
          "slurm: {time: \"5\"}\nmax_attempts: 3\npolicy: {hang_after: 10}\n");
  const std::string results = (dir / "results").string();
  ProcessResult ran = run_study(study, results);
  INFO(ran.stdout_text << ran.stderr_text);
  CHECK(ran.exit_code == 1);  // two runs failed for good

  const std::string db = results + "/failclasses.sqlite";
  std::map<std::string, std::vector<std::vector<std::string>>> by_mode;
  for (const auto& row :
       query(db,
             "SELECT json_extract(r.varied_json, '$.mode'), a.state, a.failure_class, "
             "a.failure_evidence, p.node_list, r.out_dir FROM attempts a JOIN runs r ON "
             "r.run_id = a.run_id LEFT JOIN placements p ON p.run_id = a.run_id AND "
             "p.attempt = a.attempt ORDER BY a.run_id, a.attempt")) {
    by_mode[row[0]].push_back(row);
  }
  REQUIRE(by_mode["raise"].size() == 1);
  CHECK(by_mode["raise"][0][2] == "program");
  CHECK(by_mode["raise"][0][3].find("ValueError: bad shard 3") != std::string::npos);
  REQUIRE(by_mode["fine"].size() == 1);
  CHECK(by_mode["fine"][0][1] == "COMPLETED");
  const auto& hung = by_mode["hang"];
  REQUIRE(hung.size() == 2);  // retried once (policy.retry.hang: 1)
  for (const auto& attempt : hung) {
    CAPTURE(attempt[3]);
    CHECK(attempt[2] == "hang");
    CHECK(attempt[3].find("no progress") != std::string::npos);
  }
  CHECK_FALSE(hung[0][4].empty());
  CHECK(hung[0][4] != hung[1][4]);  // the retry left the hung attempt's node out
  const fs::path stack = fs::path(results) / hung[0][5] / "stacks" / "rank0.txt";
  REQUIRE(fs::exists(stack));
  CHECK(read_file(stack.string()).find("wait_for_shard_that_never_comes") != std::string::npos);
}

// Issue 67 item 3 on the cluster: packed runs' marks that cannot be written. Their folder is
// made immutable (chattr +i: permission bits do not stop root), as a full disk or another
// owner's folder would refuse the mark.
namespace {

bool set_immutable(const fs::path& path, bool immutable) {
  auto changed = run_process({{"chattr", immutable ? "+i" : "-i", path.string()}, {}, 10'000});
  return changed && changed->succeeded();
}

// Clears chattr +i on `path` when it leaves scope, a failed check's exception included: the
// suite's next start removes its work folder, which fails under an immutable folder.
struct ThawedAtExit {
  std::string path;
  ~ThawedAtExit() {
    if (!path.empty()) set_immutable(path, false);
  }
};

// fs::remove_all of `dir`, once an earlier try's chattr +i under it is cleared.
void remove_all_mutable(const fs::path& dir) {
  if (fs::exists(dir)) run_process({{"chattr", "-R", "-i", dir.string()}, {}, 30'000});
  fs::remove_all(dir);
}

// The run (step name) packed job `job` runs now; "" when none runs within two minutes.
std::string running_step_of(const std::string& job) {
  for (int tries = 0; tries < 240; ++tries) {
    auto listed = run_process({{"squeue", "-h", "-s", "-j", job, "-o", "%i %j"}, {}, 10'000});
    std::stringstream lines(listed ? listed->stdout_text : "");
    std::string step, name;
    while (lines >> step >> name) {
      if (is_numbered_step(step)) return name;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return "";
}

}  // namespace

// `cancel` of a packed study while its first run's dropped mark cannot be written: the
// second run, not started, is cancelled; the first is named with the mark's path, left as
// it was, and cancel exits 3 (it said CANCELLED while the step ran on). Its step runs on
// and completes, in its allocation: not cancelled while a run of it still runs.
TEST_CASE(
    "cancel while a packed run's dropped mark cannot be written: it says so, the run goes on") {
  REQUIRE_CLUSTER();
  const fs::path dir = cluster.work_dir() / "packed_unmarkable_cancel";
  remove_all_mutable(dir);
  const std::string study = fault_study(dir, "unmarkablecancel", "sleep_s: 20", 2);
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string db = results + "/unmarkablecancel.sqlite";
  const std::string job = allocation_of(db);
  const std::string running = running_step_of(job);
  REQUIRE_FALSE(running.empty());
  const fs::path folder =
      fs::path(results) /
      query(db, "SELECT out_dir FROM runs WHERE run_id = '" + running + "'")[0][0];
  // Its workload has started (it writes executions.txt first).
  for (int tries = 0; tries < 120 && !fs::exists(folder / "executions.txt"); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  REQUIRE(set_immutable(folder, true));
  ThawedAtExit thawed{folder.string()};
  ProcessResult cancel = run_cli({"cancel", "unmarkablecancel", "--results-dir", results});
  const std::string state_after =
      query(db, "SELECT state FROM runs WHERE run_id = '" + running + "'")[0][0];
  REQUIRE(set_immutable(folder, false));
  INFO(cancel.stdout_text << cancel.stderr_text);
  CHECK(cancel.exit_code == 3);
  const std::string said = cancel.stdout_text + cancel.stderr_text;
  CHECK(said.find("cancelled 1 run(s);") != std::string::npos);
  CHECK(said.find("not cancelled, still running or queued: run " + running +
                  " (cannot write the mark: " + (folder / ("packed-" + job + ".dropped")).string() +
                  ": ") != std::string::npos);
  CHECK((state_after == "SUBMITTED" || state_after == "RUNNING"));
  wait_until_gone(job, 120);
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "COMPLETED", "1") == 1);
  CHECK(count_in(runs, "CANCELLED", "1") == 1);
  CHECK(query(db, "SELECT state FROM runs WHERE run_id = '" + running + "'")[0][0] == "COMPLETED");
  for (const auto& run : query(db, "SELECT run_id, out_dir FROM runs")) {
    CAPTURE(run[0]);
    CHECK(count_lines((fs::path(results) / run[1] / "executions.txt").string()) ==
          (run[0] == running ? 1 : 0));
  }
}

// A packed run whose recorded mark cannot be written as submit records it (its folder made
// immutable by sbatch once the job exists, or while slurmrestd's submission is held back):
// submit says so and the run is FAILED with the mark's path, one attempt, and not submitted
// again (it was handed back as not reached with every allocation: resubmitted forever); the
// allocation runs the other run and ends without waiting for the record
// (SCALESTUDY_PACKED_RECORD_WAIT_S, 300 s).
namespace {

void unmarkable_recorded_mark(const std::string& scheduler) {
  const fs::path dir = ClusterSession::get().work_dir() / ("packed_unmarkable_record_" + scheduler);
  remove_all_mutable(dir);
  const std::string study = fault_study(dir, "unmarkablerecord", "sleep_s: 1", 2);
  const std::string results = (dir / "results").string();
  const std::string runs_dir = results + "/unmarkablerecord/runs";
  const std::string frozen_file = (dir / "frozen").string();
  std::map<std::string, std::string> environment;
  std::optional<HoldingRelay> relay;
  if (scheduler == "slurm") {
    const fs::path bin = write_sbatch_then(
        dir, "  for run in '" + runs_dir + "'/*/; do\n    chattr +i \"$run\" && printf '%s\\n' " +
                 "\"${run%/}\" >'" + frozen_file + "'\n    break\n  done\n");
    environment["PATH"] = bin.string() + ":" + std::getenv("PATH");
  } else {
    relay.emplace(dir);
    REQUIRE(relay->ready());
    environment["SCALESTUDY_SLURMRESTD"] = relay->url();
  }
  ProcessResult submitted;
  std::thread submitter([&] { submitted = submit_packed(study, results, environment, scheduler); });
  if (relay) {
    for (int tries = 0; tries < 600 && !relay->holding(); ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    std::error_code error;
    for (const auto& run : fs::directory_iterator(runs_dir, error)) {
      if (set_immutable(run.path(), true))
        std::ofstream(frozen_file) << run.path().string() << "\n";
      break;
    }
    relay->release();
  }
  submitter.join();
  std::string frozen;
  std::ifstream(frozen_file) >> frozen;
  ThawedAtExit thawed{frozen};
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE_FALSE(frozen.empty());
  const std::string db = results + "/unmarkablerecord.sqlite";
  const std::string job = allocation_of(db);
  const auto started = std::chrono::steady_clock::now();
  wait_until_gone(job, 120);
  const bool ended = !job_in_queue(job);
  MESSAGE("allocation " << job << " ended after "
                        << std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::steady_clock::now() - started)
                               .count()
                        << " s");
  if (!ended) run_process({{"scancel", job}, {}, 10'000});
  REQUIRE(set_immutable(frozen, false));
  CHECK(ended);
  const std::string mark_error =
      "cannot write the mark: " + frozen + "/packed-" + job + ".recorded: ";
  CHECK((submitted.stdout_text + submitted.stderr_text).find(mark_error) != std::string::npos);
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "COMPLETED", "1") == 1);
  CHECK(count_in(runs, "FAILED", "1") == 1);
  const auto failed = query(
      db, "SELECT run_id, job_id, COALESCE(reason, ''), out_dir FROM runs WHERE state = 'FAILED'");
  REQUIRE(failed.size() == 1);
  CHECK(fs::path(results) / failed[0][3] == fs::path(frozen));
  CHECK(failed[0][2].find("not started: " + mark_error) != std::string::npos);
  CHECK_FALSE(fs::exists(fs::path(frozen) / "executions.txt"));
  // Settled: a later submit leaves it.
  ProcessResult again =
      run_cli({"submit", study, "--scheduler", scheduler, "--results-dir", results}, 180'000);
  INFO(again.stdout_text << again.stderr_text);
  CHECK(again.exit_code == 0);
  CHECK(query(db, "SELECT state, attempts, job_id FROM runs WHERE run_id = '" + failed[0][0] +
                      "'") == std::vector<std::vector<std::string>>{{"FAILED", "1", failed[0][1]}});
}

}  // namespace

TEST_CASE("a packed run whose recorded mark cannot be written: FAILED saying why, not rerun") {
  REQUIRE_CLUSTER();
  unmarkable_recorded_mark("slurm");
}

TEST_CASE("a packed run whose recorded mark cannot be written, via slurmrest: FAILED, not rerun") {
  REQUIRE_CLUSTER();
  unmarkable_recorded_mark("slurmrest");
}

// Issue 67's packed-allocation cases on the cluster: a requeue after a failed run was
// resubmitted elsewhere (item 1), a run the requeue killed and the next execution did not
// reach (item 2), and an allocation whose every run is cancelled while it is still pending
// (item 7).
namespace {

// Appends "<job> <restart count>" to <out-dir>/executions at each start. The first run to
// start ends at once with `first_end` (shell), once; any other execution lasts 120 s (it
// outlasts the test's requeue or stop) where the shell condition `long_when` holds ($n: this
// run's executions so far, this one included; $restarts: SLURM_RESTART_COUNT), else ends
// at once.
std::string write_requeue_workload(const fs::path& dir, const std::string& first_end,
                                   const std::string& long_when) {
  fs::create_directories(dir);
  const fs::path path = dir / "requeue_workload.sh";
  std::ofstream(path) << "#!/bin/sh\nout=\"\"; prev=\"\"\n"
                         "for arg in \"$@\"; do [ \"$prev\" = --out-dir ] && out=$arg; "
                         "prev=$arg; done\nrestarts=${SLURM_RESTART_COUNT:-0}\n"
                         "echo \"$SLURM_JOB_ID $restarts\" >>\"$out/executions\"\n"
                         "n=$(grep -c . \"$out/executions\")\n"
                         "mkdir '"
                      << (dir / "first_ended").string() << "' 2>/dev/null && " << first_end
                      << "\nif " << long_when << "; then sleep 120; fi\n";
  fs::permissions(path, fs::perms::all);
  return path.string();
}

// Pack [X, Y] in J; X fails; it is recorded FAILED and submitted again, into J2 (as `run`
// resubmits); SLURM then requeues J while Y runs (scontrol requeue; a node failure in real
// life). J's second execution runs Y again but not X, which J2 holds: X runs once in J and
// once in J2.
void requeue_after_a_failed_run_moved_on(const std::string& scheduler) {
  fs::path dir = ClusterSession::get().work_dir() / ("packed_requeue_moved_" + scheduler);
  fs::remove_all(dir);
  const std::string study = write_study(
      dir, "movedon",
      "kind: custom\nworkload: {binary: " +
          // X: exit 1, no traceback: class unknown, retried within max_attempts.
          write_requeue_workload(dir, "exit 1", "[ $n -eq 1 ]") +
          "}\nrepeats: 2\nallocation: packed\npack: {policy: serial}\nslurm: {time: \"5\"}\n"
          "max_attempts: 2\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results, {}, scheduler);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string db = results + "/movedon.sqlite";
  const std::string job = allocation_of(db);
  // Until X is recorded FAILED and Y has started in J.
  std::string x, y, x_dir, y_dir;
  for (int tries = 0; tries < 240 && (x.empty() || y.empty()); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    x.clear();
    y.clear();
    const nlohmann::json status = status_of(study, results);
    for (const auto& run : status["runs"]) {
      const std::string out_dir = run["out_dir"];
      if (run["state"] == "FAILED") {
        x = run["run_id"];
        x_dir = out_dir;
      } else if (count_lines(out_dir + "/executions") == 1) {
        y = run["run_id"];
        y_dir = out_dir;
      }
    }
  }
  REQUIRE_MESSAGE(!x.empty(), "no run failed in " << job);
  REQUIRE_MESSAGE(!y.empty(), "the other run did not start in " << job);
  ProcessResult resubmitted = submit_packed(study, results, {}, scheduler);
  INFO(resubmitted.stdout_text << resubmitted.stderr_text);
  REQUIRE(resubmitted.exit_code == 0);
  const std::string moved_to = allocation_of_run(db, x);
  REQUIRE(moved_to != job);
  auto requeued = run_process({{"scontrol", "requeue", job}, {}, 10'000});
  REQUIRE(requeued.is_ok());
  CHECK(requeued->succeeded());
  start_requeued_now(job);
  ProcessResult waited = run_cli(
      {"wait", "movedon", "--results-dir", results, "--poll-interval", "1", "--timeout", "240"},
      300'000);
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(waited.exit_code == 0);
  CHECK(read_file(x_dir + "/executions") == job + " 0\n" + moved_to + " 0\n");
  CHECK(read_file(y_dir + "/executions") == job + " 0\n" + job + " 1\n");
  CHECK(query(db, "SELECT state FROM runs") ==
        std::vector<std::vector<std::string>>{{"COMPLETED"}, {"COMPLETED"}});
  CHECK(query(db, "SELECT state, failure_class FROM attempts WHERE run_id = '" + x +
                      "' ORDER BY attempt") ==
        std::vector<std::vector<std::string>>{{"FAILED", "unknown"}, {"COMPLETED", ""}});
  for (const auto& attempt :
       query(db, "SELECT attempt, state, failure_class FROM attempts WHERE run_id = '" + y + "'")) {
    MESSAGE("Y's attempt " << attempt[0] << ": " << attempt[1] << " " << attempt[2]);
    CHECK(attempt[1] != "FAILED");
  }
}

}  // namespace

TEST_CASE("a packed job requeued after its failed run was resubmitted runs it no more") {
  REQUIRE_CLUSTER();
  requeue_after_a_failed_run_moved_on("slurm");
}

TEST_CASE("a packed job requeued after its failed run was resubmitted, via slurmrest") {
  REQUIRE_CLUSTER();
  requeue_after_a_failed_run_moved_on("slurmrest");
}

namespace {

// Pack [Q, P]; Q ends at once with 75, as a run that checkpointed, which J resumes after
// a requeue; P runs until SLURM requeues J (scontrol requeue), which kills it. J's second
// execution starts Q again and is stopped (USR1, as near its limit) before P's turn (Q's
// step is stopped: a cancelled attempt, retried). P's first execution left its started
// mark (a finished one too, 143, where the wrapper outlives the requeue and cannot tell
// it); those are not the second execution's, which marked P not reached: P is handed back
// at no attempt's cost and completes in the next allocation, its one attempt.
void requeued_then_not_reached(const std::string& scheduler) {
  fs::path dir = ClusterSession::get().work_dir() / ("packed_requeue_not_reached_" + scheduler);
  fs::remove_all(dir);
  const std::string study = write_study(
      dir, "notreachedagain",
      "kind: custom\nworkload: {binary: " +
          write_requeue_workload(dir, "exit 75", "[ $n -eq 1 ] || [ $restarts -gt 0 ]") +
          "}\nrepeats: 2\nallocation: packed\npack: {policy: serial}\nslurm: {time: \"5\"}\n"
          "max_attempts: 2\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results, {}, scheduler);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string db = results + "/notreachedagain.sqlite";
  const std::string job = allocation_of(db);
  // Both started in J: Q has ended (its finished mark), P runs.
  std::string p, p_dir, q_dir;
  for (int tries = 0; tries < 240 && (p.empty() || q_dir.empty()); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    p.clear();
    q_dir.clear();
    for (const auto& run : query(db, "SELECT run_id, out_dir FROM runs")) {
      const std::string out_dir = (fs::path(results) / run[1]).string();
      if (count_lines(out_dir + "/executions") != 1) continue;
      if (fs::exists(out_dir + "/packed-" + job + ".finished")) {
        q_dir = out_dir;
      } else {
        p = run[0];
        p_dir = out_dir;
      }
    }
  }
  REQUIRE_MESSAGE((!p.empty() && !q_dir.empty()), "both runs did not start in " << job);
  auto requeued = run_process({{"scontrol", "requeue", job}, {}, 10'000});
  REQUIRE(requeued.is_ok());
  CHECK(requeued->succeeded());
  start_requeued_now(job);
  for (int tries = 0; tries < 240 && count_lines(q_dir + "/executions") < 2; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  REQUIRE(read_file(q_dir + "/executions") == job + " 0\n" + job + " 1\n");
  run_process({{"scancel", "-b", "-s", "USR1", job}, {}, 10'000});
  wait_until_gone(job, 120);
  settled_runs(study, results);
  CHECK(query(db, "SELECT state, attempts FROM runs WHERE run_id = '" + p + "'") ==
        std::vector<std::vector<std::string>>{{"PLANNED", "0"}});
  submit_then_wait(study, results, {"--scheduler", scheduler});
  CHECK(read_file(p_dir + "/executions") == job + " 0\n" + allocation_of_run(db, p) + " 0\n");
  CHECK(query(db, "SELECT state FROM attempts WHERE run_id = '" + p + "'") ==
        std::vector<std::vector<std::string>>{{"COMPLETED"}});
}

}  // namespace

TEST_CASE("a packed run the requeue killed, not reached in the next execution, costs nothing") {
  REQUIRE_CLUSTER();
  requeued_then_not_reached("slurm");
}

TEST_CASE("a packed run the requeue killed, not reached again, costs nothing, via slurmrest") {
  REQUIRE_CLUSTER();
  requeued_then_not_reached("slurmrest");
}

namespace {

// Every run of a held (pending) packed allocation cancelled: the allocation goes too, and
// no run ever starts.
void cancel_every_run_of_a_pending_allocation(const std::string& scheduler) {
  fs::path dir = ClusterSession::get().work_dir() / ("packed_cancel_pending_" + scheduler);
  fs::remove_all(dir);
  const std::string study = write_study(
      dir, "cancelpending",
      "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
          ", sleep_s: 1}\nrepeats: 2\nallocation: packed\nslurm: {time: \"5\", extra: [--hold]}\n"
          "max_attempts: 1\n");
  const std::string results = (dir / "results").string();
  ProcessResult submitted = submit_packed(study, results, {}, scheduler);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string db = results + "/cancelpending.sqlite";
  const std::string job = allocation_of(db);
  REQUIRE(job_in_queue(job));
  ProcessResult cancel = run_cli({"cancel", "cancelpending", "--results-dir", results});
  INFO(cancel.stdout_text << cancel.stderr_text);
  CHECK(cancel.exit_code == 0);
  wait_until_gone(job, 60);
  CHECK_FALSE(job_in_queue(job));
  const auto runs = settled_runs(study, results);
  CHECK(count_in(runs, "CANCELLED", "1") == 2);
  for (const auto& run : query(db, "SELECT out_dir FROM runs")) {
    CHECK_FALSE(fs::exists(fs::path(results) / run[0] / "executions.txt"));
  }
}

}  // namespace

TEST_CASE("cancelling every run of a pending packed allocation cancels the allocation") {
  REQUIRE_CLUSTER();
  cancel_every_run_of_a_pending_allocation("slurm");
}

TEST_CASE("cancelling every run of a pending packed allocation via slurmrest cancels it") {
  REQUIRE_CLUSTER();
  cancel_every_run_of_a_pending_allocation("slurmrest");
}

// Issue 64 on the cluster, packed: the node of a packed allocation lost under one of its
// three runs (slurm.extra --no-requeue, so the allocation ends NODE_FAIL). SLURM cancels the
// running step; that run is class node, its evidence naming the node, and is retried in a
// new allocation that excludes the node, without using max_attempts (1). The two runs not
// yet started there cost no attempt (as after a time limit): they run in the new allocation
// with their first.
TEST_CASE("a node killed under one of three packed runs: class node, the three rerun elsewhere") {
  REQUIRE_CLUSTER();
  const DaemonsRestartedAtExit restart(cluster);
  const fs::path dir = cluster.work_dir() / "packed_node_killed";
  fs::remove_all(dir);
  // Three 1-node runs in a 1-node allocation, one after another, 20 s each.
  const std::string study =
      write_study(dir, "packednode",
                  "kind: custom\nworkload: {binary: " + write_marking_workload(dir) +
                      ", sleep_s: 20}\nrepeats: 3\nallocation: packed\n"
                      "slurm: {time: \"5\", extra: [\"--no-requeue\"]}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  const std::string db = results + "/packednode.sqlite";
  ProcessResult submitted = submit_packed(study, results);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  const std::string first = allocation_of(db);
  const auto runs = query(db, "SELECT run_id, out_dir FROM runs ORDER BY run_id");
  REQUIRE(runs.size() == 3);

  // The first run's step running: its node goes, as in a power cut.
  std::string cut, cut_dir;
  const RunningJob running = wait_running(first, [&] {
    for (const auto& run : runs) {
      if (fs::exists(fs::path(results) / run[1] / "starts")) cut = run[0], cut_dir = run[1];
    }
    return !cut.empty();
  });
  const std::string node = running.node_list;
  REQUIRE(hosts_of(node).size() == 1);
  REQUIRE(cluster.kill_node(node));
  // The study records the allocation's end once slurmctld has found the node silent.
  REQUIRE(holds_within(180, [&] {
    status_of(study, results);
    return query(db, "SELECT state FROM runs WHERE run_id = '" + cut + "'")[0][0] == "NODE_FAIL";
  }));
  CHECK(sacct_field(first, "State") == "NODE_FAIL");
  for (const auto& run : query(db, "SELECT run_id, state, attempts FROM runs")) {
    CAPTURE(run[0]);
    if (run[0] != cut) CHECK(run[1] + " " + run[2] == "PLANNED 0");  // handed back, free
  }
  // The node back and idle: only the exclusion keeps the new allocation off it.
  REQUIRE(cluster.restart_missing_daemons());
  REQUIRE(wait_node_state(node, "idle", 60));

  ProcessResult resubmitted = submit_packed(study, results);
  INFO(resubmitted.stdout_text << resubmitted.stderr_text);
  REQUIRE(resubmitted.exit_code == 0);
  const std::string second = allocation_of(db);  // all three
  CHECK(second != first);
  CHECK(hosts_of(scontrol_field(second, "ExcNodeList")) == hosts_of(node));
  ProcessResult waited =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "240"},
              300'000);
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(waited.exit_code == 0);

  CHECK(hosts_of(sacct_field(second, "NodeList")).count(node) == 0);
  for (const auto& run : runs) {
    CAPTURE(run[0]);
    const auto attempts = query(db,
                                "SELECT a.state, a.job_id, a.failure_class, a.failure_evidence, "
                                "p.node_list FROM attempts a LEFT JOIN placements p ON p.run_id "
                                "= a.run_id AND p.attempt = a.attempt WHERE a.run_id = '" +
                                    run[0] + "' ORDER BY a.attempt");
    REQUIRE(attempts.size() == (run[0] == cut ? 2 : 1));
    if (run[0] == cut) {
      CHECK(attempts[0][0] == "NODE_FAIL");
      CHECK(attempts[0][1] == first + "+" + cut);
      CHECK(attempts[0][2] == "node");
      CHECK(attempts[0][3].find("on " + node) != std::string::npos);
      CHECK(attempts[0][4] == node);
    }
    CHECK(attempts.back()[0] == "COMPLETED");
    CHECK(attempts.back()[1] == second + "+" + run[0]);
    CHECK(hosts_of(attempts.back()[4]).count(node) == 0);
    // Completed once, in the new allocation.
    CHECK(read_file((fs::path(results) / run[1] / "ends").string()) == second + "\n");
  }
  CHECK(query(db, "SELECT state, attempts FROM runs WHERE run_id = '" + cut + "'") ==
        std::vector<std::vector<std::string>>{{"COMPLETED", "2"}});
  // status's node table: the node, with the one node failure (the runs handed back add none).
  CHECK(status_of(study, results)["nodes"] ==
        nlohmann::json::array({{{"node", node},
                                {"failures", {{"node", 1}}},
                                {"other_studies", nlohmann::json::object()},
                                {"flagged", false}}}));
}
