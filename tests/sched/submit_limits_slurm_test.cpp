// Submit limits on the real local SLURM cluster (slurm/cluster/): with the user's
// association held to MaxSubmitJobs=2, a 10-run study is submitted in waves through the
// `scalestudy` CLI (sbatch, and slurmrestd) and completes without a submit error, every run
// once; later waves keep the options submit was given. Needs root and the cluster scripts;
// skipped otherwise.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/slurm_cluster_session.hpp"

using namespace scalestudy::common;
using namespace scalestudy::testing;
namespace fs = std::filesystem;

namespace {

// Sets MaxSubmitJobs on `user`'s associations for the life of the guard and restores what
// was there (unlimited: -1) when it ends, a failed REQUIRE included.
class SubmitLimitGuard {
 public:
  SubmitLimitGuard(int jobs, std::string user = "root") : user_(std::move(user)) {
    auto shown = run_process({{"sacctmgr", "-n", "-P", "show", "assoc", "where", "users=" + user_,
                               "format=MaxSubmitJobs"},
                              {},
                              30'000});
    REQUIRE(shown.is_ok());
    REQUIRE(shown->succeeded());
    std::string previous = shown->stdout_text.substr(0, shown->stdout_text.find('\n'));
    previous_ = previous.empty() ? "-1" : previous;
    set(std::to_string(jobs));
  }
  ~SubmitLimitGuard() { set(previous_); }

 private:
  void set(const std::string& jobs) const {
    run_process({{"sacctmgr", "-i", "modify", "user", "where", "name=" + user_, "set",
                  "MaxSubmitJobs=" + jobs},
                 {},
                 30'000});
  }
  std::string user_;
  std::string previous_ = "-1";
};

struct AccountedJob {
  std::string job_id;
  std::string submit, end;  // ISO-8601 local times, comparable as text
};

// Every job (array tasks one by one) of the given job ids, as sacct has them.
std::vector<AccountedJob> accounted_jobs(const std::set<std::string>& job_ids) {
  std::string joined;
  for (const std::string& job_id : job_ids) joined += (joined.empty() ? "" : ",") + job_id;
  auto listed =
      run_process({{"sacct", "-X", "-n", "--parsable2", "-j", joined, "--format=JobID,Submit,End"},
                   {},
                   30'000});
  REQUIRE(listed.is_ok());
  std::vector<AccountedJob> jobs;
  std::stringstream lines(listed->stdout_text);
  for (std::string line; std::getline(lines, line);) {
    std::stringstream fields(line);
    AccountedJob job;
    std::getline(fields, job.job_id, '|');
    std::getline(fields, job.submit, '|');
    std::getline(fields, job.end, '|');
    if (!job.job_id.empty()) jobs.push_back(job);
  }
  return jobs;
}

// A study of `runs` runs of the fake workload, each sleeping `sleep_s`, in a fresh folder
// `folder` of the cluster's work dir; one attempt each.
struct WaveStudy {
  std::string study;
  std::string results;
};
WaveStudy wave_study(const std::string& folder, const std::string& name, int runs, int sleep_s) {
  fs::path dir = ClusterSession::get().work_dir() / folder;
  fs::remove_all(dir);
  std::string tags;
  for (int tag = 1; tag <= runs; ++tag) tags += (tag > 1 ? ", " : "") + std::to_string(tag);
  return {write_study(dir, name,
                      "workload: {binary: " + write_fake_workload(dir) +
                          ", sleep_s: " + std::to_string(sleep_s) + "}\nmatrix: {tag: [" + tags +
                          "]}\nslurm: {time: \"5\"}\nmax_attempts: 1\n"),
          (dir / "results").string()};
}

// `submit STUDY --scheduler slurm OPTIONS` under a limit that leaves at least 4 of its 6
// runs waiting, then `wait`: the status at the end, every run in it.
nlohmann::json submit_in_waves(const std::string& study, const std::string& results,
                               const std::vector<std::string>& options) {
  std::vector<std::string> args = {"submit", study,           "--scheduler",
                                   "slurm",  "--results-dir", results};
  args.insert(args.end(), options.begin(), options.end());
  ProcessResult submitted = run_cli(args);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  REQUIRE(status_of(study, results)["waiting_for_slot"] >= 4);
  ProcessResult waited =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "300"},
              360'000);
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(waited.exit_code == 0);
  auto status = status_of(study, results);
  REQUIRE(status["runs"].size() == 6);
  return status;
}

// A 10-run study submitted through `scheduler` as `user` (whose jobs the limit counts)
// under MaxSubmitJobs=2: it completes in waves, each run once, never more than two jobs
// queued at once.
void check_waves_under_limit(const std::string& scheduler, const std::string& user) {
  const WaveStudy waves = wave_study("submit_limits_" + scheduler, "waves10", 10, 2);
  const std::string& study = waves.study;
  const std::string& results = waves.results;
  SubmitLimitGuard limit(2, user);

  ProcessResult submitted =
      run_cli({"submit", study, "--scheduler", scheduler, "--results-dir", results});
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  // Two slots, fewer when other jobs of the user hold some.
  CHECK(submitted.stdout_text.find(" of 10 runs (MaxSubmitJobs=2 for user " + user + "); ") !=
        std::string::npos);
  CHECK(submitted.stdout_text.find(
            " wait for a free slot; `scalestudy wait` submits them as jobs finish") !=
        std::string::npos);
  CHECK(submitted.stderr_text.find("error") == std::string::npos);
  auto after_submit = status_of(study, results);
  CHECK(after_submit["waiting_for_slot"] >= 8);
  CHECK(after_submit["in_flight"] <= 2);

  ProcessResult waited =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "400"},
              480'000);
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(waited.exit_code == 0);

  auto status = status_of(study, results);
  REQUIRE(status["runs"].size() == 10);
  std::set<std::string> submissions;
  for (const auto& run : status["runs"]) {
    CHECK(run["state"] == "COMPLETED");
    CHECK(run["attempts"] == 1);
    CHECK(count_lines(run["out_dir"].get<std::string>() + "/executions.txt") == 1);
    const std::string job_id = run["job_id"];
    submissions.insert(job_id.substr(0, job_id.find('_')));
  }
  // Each run once, over at least five submissions (two slots each; more when other jobs of
  // the user hold slots), and never more than two of ours queued at once: a job submitted
  // while two others had not ended would have broken the limit.
  CHECK(submissions.size() >= 5);
  // slurmdbd learns of the last jobs' ends a moment after squeue does.
  std::vector<AccountedJob> jobs;
  for (int tries = 0; tries < 120; ++tries) {
    jobs = accounted_jobs(submissions);
    bool ended = std::all_of(jobs.begin(), jobs.end(),
                             [](const AccountedJob& job) { return job.end != "Unknown"; });
    if (jobs.size() >= 10 && ended) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  CHECK(jobs.size() == 10);
  for (const AccountedJob& job : jobs) {
    int open = 0;
    for (const AccountedJob& other : jobs) {
      if (other.submit <= job.submit && other.end > job.submit) ++open;
    }
    INFO("job " << job.job_id << " submitted " << job.submit);
    CHECK(open <= 2);
  }
}

}  // namespace

TEST_CASE("with MaxSubmitJobs=2 a 10-run study completes in waves without a submit error") {
  REQUIRE_CLUSTER();
  check_waves_under_limit("slurm", "root");
}

// slurmrestd's own endpoints give the limit and the queue: the waves are planned, not
// found by refusals.
TEST_CASE("through slurmrest, with MaxSubmitJobs=2 a 10-run study completes in waves") {
  REQUIRE_CLUSTER();
  const char* user = std::getenv("SCALESTUDY_SLURMRESTD_USER");
  REQUIRE(user != nullptr);
  check_waves_under_limit("slurmrest", user);
}

// The `small` partition (MaxTime 5 minutes) takes two 2-minute runs per allocation: six
// runs are three allocations, and one slot lets one be queued at a time.
TEST_CASE("wait submits the later waves of a submit --packed packed") {
  REQUIRE_CLUSTER();
  fs::path dir = ClusterSession::get().work_dir() / "submit_limits_packed";
  fs::remove_all(dir);
  const std::string study =
      write_study(dir, "wavespacked",
                  "kind: custom\nworkload: {binary: " + write_fake_workload(dir) +
                      ", sleep_s: 1}\nmatrix: {tag: [1, 2, 3, 4, 5, 6]}\npack: {policy: serial}\n"
                      "slurm: {time: \"2\", partition: small}\nmax_attempts: 1\n");
  const std::string results = (dir / "results").string();
  SubmitLimitGuard limit(1);
  auto status = submit_in_waves(study, results, {"--packed"});
  std::set<std::string> allocations;
  for (const auto& run : status["runs"]) {
    CHECK(run["state"] == "COMPLETED");
    CHECK(run["attempts"] == 1);
    // A packed run's id is "<allocation>+<run id>".
    const std::string job_id = run["job_id"];
    REQUIRE(job_id.find('+') != std::string::npos);
    allocations.insert(job_id.substr(0, job_id.find('+')));
  }
  CHECK(allocations.size() == 3);
}

TEST_CASE("wait submits the later waves with the options submit was given (--no-arrays)") {
  REQUIRE_CLUSTER();
  const WaveStudy waves = wave_study("submit_limits_choices", "waves6", 6, 1);
  const std::string& study = waves.study;
  const std::string& results = waves.results;
  SubmitLimitGuard limit(2);
  auto status = submit_in_waves(study, results, {"--no-arrays"});
  for (const auto& run : status["runs"]) {
    CHECK(run["state"] == "COMPLETED");
    // One job per run in every wave: an array task's id would be "<job>_<index>".
    CHECK(run["job_id"].get<std::string>().find('_') == std::string::npos);
  }
}
