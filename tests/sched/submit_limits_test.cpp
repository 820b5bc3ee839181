#include "orchestrator/sched/submit_limits.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "orchestrator/sched/batch_jobs.hpp"
#include "tests/sched/prepared_run_fixture.hpp"

using namespace scalestudy::sched;
namespace fs = std::filesystem;

namespace {

PreparedRun wave_run(const fs::path& dir, const std::string& run_id, int nodes) {
  return scalestudy::sched_testing::prepared_run(dir, "waves", run_id,
                                                 "#!/bin/bash\n#SBATCH --job-name=" + run_id +
                                                     "\n#SBATCH --nodes=" + std::to_string(nodes) +
                                                     "\nsrun train\n");
}

}  // namespace

TEST_CASE("MaxArraySize is read from scontrol show config") {
  const std::string config =
      "Configuration data as of 2026-11-26T05:00:00\n"
      "MailProg                = /bin/mail\n"
      "MaxArraySize            = 1001\n"
      "MaxJobCount             = 20000\n";
  CHECK(parse_max_array_size(config) == 1001);
  CHECK_FALSE(parse_max_array_size("MaxJobCount = 20000\n").has_value());
}

TEST_CASE("the tightest submit limit of the user's associations and their QOS wins") {
  const std::string qos = "normal||\nlong|5\nshort|1\n";
  // No association limit; the default QOS normal sets none either.
  CHECK_FALSE(tightest_submit_limit("|normal|normal\n", qos, "alice").has_value());

  auto association = tightest_submit_limit("2|normal|normal\n", qos, "root");
  REQUIRE(association.has_value());
  CHECK(association->jobs == 2);
  CHECK(association->source == "MaxSubmitJobs=2 for user root");

  // The QOS jobs go to (the default one, else the first allowed) limits tighter.
  auto by_qos = tightest_submit_limit("10|long|long,short\n|short|short,long\n", qos, "bob");
  REQUIRE(by_qos.has_value());
  CHECK(by_qos->jobs == 1);
  CHECK(by_qos->source == "MaxSubmitPU=1 of QOS short");
  auto first_allowed = tightest_submit_limit("10||long,short\n", qos, "bob");
  REQUIRE(first_allowed.has_value());
  CHECK(first_allowed->jobs == 5);
}

TEST_CASE("a submit-limit refusal is told apart from other sbatch errors") {
  CHECK(submit_limit_refusal("sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch "
                             "job submission failed") == "QOSMaxSubmitJobPerUserLimit");
  CHECK(submit_limit_refusal("sbatch: error: AssocMaxSubmitJobLimit") == "AssocMaxSubmitJobLimit");
  CHECK_FALSE(submit_limit_refusal("sbatch: error: Invalid partition name specified"));
  CHECK_FALSE(submit_limit_refusal("sbatch: error: QOSMaxWallDurationPerJobLimit"));
  // slurmrestd says only this; sbatch adds the limit's name, here not a submit limit.
  const std::string generic =
      "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";
  CHECK(submit_limit_refusal("slurmrestd refused the job: " + generic) == "job submit limit");
  CHECK_FALSE(submit_limit_refusal("sbatch: error: QOSMaxWallDurationPerJobLimit\n" + generic));
}

TEST_CASE("a wave keeps groups in order while free slots last and splits large arrays") {
  const std::vector<std::vector<size_t>> groups = {{0, 1, 2, 3, 4}, {5}, {6, 7}};
  // Unknown limits: everything, as it was grouped.
  CHECK(fit_wave(groups, {}) == groups);
  // Two slots: the first two runs of the first array.
  WaveCapacity two;
  two.free_slots = 2;
  CHECK(fit_wave(groups, two) == std::vector<std::vector<size_t>>{{0, 1}});
  // Arrays of at most 2 tasks, 6 slots: runs 6 and 7 wait.
  WaveCapacity split;
  split.free_slots = 6;
  split.max_array_size = 2;
  CHECK(fit_wave(groups, split) == std::vector<std::vector<size_t>>{{0, 1}, {2, 3}, {4}, {5}});
  WaveCapacity full;
  full.free_slots = 0;
  CHECK(fit_wave(groups, full).empty());
}

TEST_CASE("the capacity counts the user's queued array tasks against the limit") {
  std::vector<std::vector<std::string>> asked;
  std::map<std::string, std::string> answers = {
      {"scontrol", "MaxArraySize            = 4\n"},
      {"sacctmgr show assoc", "3|normal|normal\n"},
      {"sacctmgr show qos", "normal||\n"},
      // One running job and one pending array task still unexpanded.
      {"squeue", "17\n18_[4]\n"}};
  auto run = [&](const std::vector<std::string>& argv) -> scalestudy::Result<std::string> {
    asked.push_back(argv);
    std::string key = argv[0] == "sacctmgr" ? "sacctmgr show " + argv[4] : argv[0];
    return answers.at(key);
  };
  WaveCapacity capacity = read_wave_capacity(run, "root");
  CHECK(capacity.max_array_size == 4);
  CHECK(capacity.free_slots == 1);
  CHECK(capacity.limit == "MaxSubmitJobs=3 for user root");
  CHECK(asked.back() == std::vector<std::string>{"squeue", "-h", "-r", "-u", "root", "-o", "%i"});

  // No accounting database: the limit stays unknown, the wave unbounded.
  auto no_accounting =
      [&](const std::vector<std::string>& argv) -> scalestudy::Result<std::string> {
    if (argv[0] == "sacctmgr") return scalestudy::Status::error("sacctmgr: Connection refused");
    return answers.at(argv[0]);
  };
  WaveCapacity unknown = read_wave_capacity(no_accounting, "root");
  CHECK_FALSE(unknown.free_slots.has_value());
  CHECK(unknown.max_array_size == 4);
}

TEST_CASE("a wave submits what fits and defers the rest with the limit as the reason") {
  fs::path dir = fs::temp_directory_path() / "scalestudy_submit_waves";
  fs::remove_all(dir);
  std::vector<PreparedRun> runs;
  for (const char* id : {"a", "b", "c", "d", "e"}) runs.push_back(wave_run(dir, id, 1));
  BatchOptions options;
  options.array_script_dir = (dir / "arrays").string();
  WaveCapacity capacity;
  capacity.free_slots = 2;
  capacity.limit = "MaxSubmitJobs=2 for user root";

  std::vector<std::vector<std::string>> submitted_options;
  std::vector<Submission> reported;
  std::map<std::string, std::string> deferred;
  SubmitCallbacks callbacks;
  callbacks.submitted = [&](const Submission& s) { reported.push_back(s); };
  callbacks.deferred = [&](const std::string& run_id, const std::string& limit) {
    deferred[run_id] = limit;
  };
  auto result = submit_wave(
      runs, options, capacity,
      [&](const BatchJob&,
          const std::vector<std::string>& submit_options) -> scalestudy::Result<std::string> {
        submitted_options.push_back(submit_options);
        return std::string("40");
      },
      callbacks);
  REQUIRE(result.is_ok());
  // One array of two tasks, the other three wait.
  REQUIRE(submitted_options.size() == 1);
  CHECK(submitted_options[0] == std::vector<std::string>{"--array=0-1"});
  REQUIRE(reported.size() == 2);
  CHECK(reported[0].job_id == "40_0");
  CHECK(reported[1].run_id == "b");
  CHECK(deferred == std::map<std::string, std::string>{
                        {"c", capacity.limit}, {"d", capacity.limit}, {"e", capacity.limit}});
}

TEST_CASE("an array the limit refuses whole goes run by run until the limit refuses again") {
  fs::path dir = fs::temp_directory_path() / "scalestudy_submit_refused_array";
  fs::remove_all(dir);
  std::vector<PreparedRun> runs;
  for (const char* id : {"a", "b", "c", "d"}) runs.push_back(wave_run(dir, id, 1));
  BatchOptions options;
  options.array_script_dir = (dir / "arrays").string();
  options.extra_sbatch_args = {"--hold"};
  // Unknown limits (slurmrest): one array of four; the cluster has room for one more job.
  int room = 1, next_id = 70;
  std::vector<std::string> scripts;
  std::vector<Submission> reported;
  std::vector<std::string> deferred;
  SubmitCallbacks callbacks;
  callbacks.submitted = [&](const Submission& s) { reported.push_back(s); };
  callbacks.deferred = [&](const std::string& run_id, const std::string& limit) {
    CHECK(limit == "AssocMaxSubmitJobLimit");
    deferred.push_back(run_id);
  };
  auto result = submit_wave(
      runs, options, {},
      [&](const BatchJob& job,
          const std::vector<std::string>& submit_options) -> scalestudy::Result<std::string> {
        scripts.push_back(job.script_path);
        CHECK(submit_options.back() == "--hold");
        if (static_cast<int>(job.runs.size()) > room) {
          return scalestudy::Status::error("sbatch: error: AssocMaxSubmitJobLimit");
        }
        room -= static_cast<int>(job.runs.size());
        return std::to_string(next_id++);
      },
      callbacks);
  REQUIRE(result.is_ok());
  REQUIRE(scripts.size() == 3);  // the array, then a, then b (refused)
  CHECK(scripts[1] == runs[0].script_path);
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].run_id == "a");
  CHECK(reported[0].job_id == "70");
  CHECK(deferred == std::vector<std::string>{"b", "c", "d"});
}
