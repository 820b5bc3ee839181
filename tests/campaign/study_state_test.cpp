#include "orchestrator/campaign/study_state.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "harness/core/run_layout.hpp"
#include "tests/support/study_state_support.hpp"

using namespace scalestudy;
using namespace scalestudy::campaign;
using namespace scalestudy::sched;
namespace fs = std::filesystem;

namespace {

StudyState fresh_state(const char* name) {
  fs::path path = fs::temp_directory_path() / name;
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
  auto state = StudyState::open(path.string());
  REQUIRE(state.is_ok());
  return std::move(*state);
}

PlannedRun planned(const std::string& run_id) {
  return scalestudy::testing::planned_run(run_id, "/tmp/demo/runs/" + run_id);
}

std::string dead_process_token() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + ":" + std::to_string(child) + ":1";
}

}  // namespace

TEST_CASE("a claimed run belongs to its claimer until it is submitted") {
  StudyState state = fresh_state("scalestudy_state_claim.sqlite");
  REQUIRE(state.save_study({"demo", "strong", "/s/demo.yaml", "{}", "{}", 2}).is_ok());
  REQUIRE(state.plan_runs({planned("a"), planned("b")}).is_ok());
  CHECK(scalestudy::testing::run_record_of(state, "a").state == kStatePlanned);

  auto first = state.claim_runs(2, RetryPolicy{}, "host:1:first");
  REQUIRE(first.is_ok());
  CHECK(*first == std::vector<std::string>{"a", "b"});
  auto second = state.claim_runs(2, RetryPolicy{}, "host:2:second");
  REQUIRE(second.is_ok());
  CHECK(second->empty());

  CHECK_FALSE(state.record_submission({"a", "100"}, "slurm", "host:2:second").is_ok());
  REQUIRE(state.record_submission({"a", "100"}, "slurm", "host:1:first").is_ok());
  RunRecord a = scalestudy::testing::run_record_of(state, "a");
  CHECK(a.state == kStateSubmitted);
  CHECK(a.attempts == 1);
  CHECK(a.job_id == "100");
  CHECK(a.scheduler == "slurm");

  REQUIRE(state.release_claim("b", "host:1:first", "sbatch: error").is_ok());
  RunRecord b = scalestudy::testing::run_record_of(state, "b");
  CHECK(b.state == kStatePlanned);
  CHECK(b.attempts == 0);
  CHECK(b.reason == "sbatch: error");
}

TEST_CASE("retryable failures are resubmitted until attempts run out, then reported") {
  StudyState state = fresh_state("scalestudy_state_retry.sqlite");
  REQUIRE(state.plan_runs({planned("a"), planned("done")}).is_ok());
  REQUIRE(state.claim_runs(2, RetryPolicy{}, "t:1:x").is_ok());
  REQUIRE(state.record_submission({"a", "1"}, "slurm", "t:1:x").is_ok());
  REQUIRE(state.record_submission({"done", "2"}, "slurm", "t:1:x").is_ok());
  REQUIRE(state.record_job_status("a", "1", {JobState::kRunning, std::nullopt, ""}).is_ok());
  CHECK_FALSE(scalestudy::testing::run_record_of(state, "a").started_at.empty());
  REQUIRE(state.record_job_status("a", "1", {JobState::kTimeout, 0, "TimeLimit"}).is_ok());
  REQUIRE(state.record_job_status("done", "2", {JobState::kCompleted, 0, ""}).is_ok());

  // A late poll of the old job cannot pull a finished run back to RUNNING.
  REQUIRE(state.record_job_status("a", "1", {JobState::kRunning, std::nullopt, ""}).is_ok());
  CHECK(scalestudy::testing::run_record_of(state, "a").state == "TIMEOUT");
  CHECK_FALSE(is_exhausted(scalestudy::testing::run_record_of(state, "a"), 2, RetryPolicy{}));

  auto again = state.claim_runs(2, RetryPolicy{}, "t:1:y");
  REQUIRE(again.is_ok());
  CHECK(*again == std::vector<std::string>{"a"});  // COMPLETED is skipped
  REQUIRE(state.record_submission({"a", "3"}, "slurm", "t:1:y").is_ok());
  // States of the previous job no longer touch the run.
  REQUIRE(state.record_job_status("a", "1", {JobState::kFailed, 1, "late"}).is_ok());
  CHECK(scalestudy::testing::run_record_of(state, "a").state == kStateSubmitted);
  REQUIRE(state.record_job_status("a", "3", {JobState::kTimeout, 0, "TimeLimit"}).is_ok());

  auto none = state.claim_runs(2, RetryPolicy{}, "t:1:z");
  REQUIRE(none.is_ok());
  CHECK(none->empty());
  RunRecord a = scalestudy::testing::run_record_of(state, "a");
  CHECK(a.attempts == 2);
  CHECK(is_exhausted(a, 2, RetryPolicy{}));
  CHECK(failure_summary(a) == "TIMEOUT after 2 attempts [time]: TIMEOUT (TimeLimit)");

  auto history = state.attempts("a");
  REQUIRE(history.is_ok());
  REQUIRE(history->size() == 2);
  CHECK((*history)[0].job_id == "1");
  CHECK((*history)[0].state == "TIMEOUT");
  CHECK((*history)[1].job_id == "3");
  CHECK((*history)[1].state == "TIMEOUT");
  CHECK_FALSE((*history)[1].finished_at.empty());
}

TEST_CASE("a run never reached in three allocations completes in a fourth on one attempt") {
  StudyState state = fresh_state("scalestudy_state_not_reached.sqlite");
  REQUIRE(state.save_study({"demo", "strong", "/s/demo.yaml", "{}", "{}", 3}).is_ok());
  REQUIRE(state.plan_runs({planned("late")}).is_ok());
  for (int allocation = 1; allocation <= 3; ++allocation) {
    CAPTURE(allocation);
    const std::string job = std::to_string(allocation) + "+late";
    auto claimed = state.claim_runs(3, RetryPolicy{}, "t:1:" + job);
    REQUIRE(claimed.is_ok());
    REQUIRE(*claimed == std::vector<std::string>{"late"});
    REQUIRE(state.record_submission({"late", job}, "slurm", "t:1:" + job).is_ok());
    REQUIRE(state.record_job_status("late", job, {JobState::kPending, std::nullopt, ""}).is_ok());
    common::JobStatus ended{JobState::kTimeout, std::nullopt,
                            "in allocation " + std::to_string(allocation) +
                                ", which ended "
                                "TIMEOUT before this run's step started"};
    ended.never_started = true;
    REQUIRE(state.record_job_status("late", job, ended).is_ok());
    RunRecord run = scalestudy::testing::run_record_of(state, "late");
    CHECK(run.state == kStatePlanned);
    CHECK(run.attempts == 0);
    CHECK(run.reason == "not reached in allocation " + std::to_string(allocation) +
                            ", which ended TIMEOUT before this run's step started");
    CHECK_FALSE(is_exhausted(run, 3, RetryPolicy{}));
    // `wait` submits it as a later wave, like a run held back by a submit limit.
    auto waves = state.claim_runs(3, RetryPolicy{}, "t:1:peek", /*planned_only=*/true);
    REQUIRE(waves.is_ok());
    CHECK(*waves == std::vector<std::string>{"late"});
    REQUIRE(state.release_claim("late", "t:1:peek", run.reason).is_ok());
  }
  REQUIRE(state.claim_runs(3, RetryPolicy{}, "t:1:4").is_ok());
  REQUIRE(state.record_submission({"late", "4+late"}, "slurm", "t:1:4").is_ok());
  REQUIRE(
      state.record_job_status("late", "4+late", {JobState::kRunning, std::nullopt, ""}).is_ok());
  REQUIRE(state.record_job_status("late", "4+late", {JobState::kCompleted, 0, ""}).is_ok());
  RunRecord run = scalestudy::testing::run_record_of(state, "late");
  CHECK(run.state == "COMPLETED");
  CHECK(run.attempts == 1);
  auto history = state.attempts("late");
  REQUIRE(history.is_ok());
  REQUIRE(history->size() == 1);
  CHECK((*history)[0].job_id == "4+late");
  CHECK((*history)[0].state == "COMPLETED");
}

TEST_CASE("claims of a dead submitter are taken over, live ones are not") {
  StudyState state = fresh_state("scalestudy_state_stale.sqlite");
  REQUIRE(state.plan_runs({planned("a")}).is_ok());
  REQUIRE(state.claim_runs(3, RetryPolicy{}, dead_process_token()).is_ok());
  CHECK(scalestudy::testing::run_record_of(state, "a").state == kStateSubmitting);
  auto taken = state.claim_runs(3, RetryPolicy{}, make_claim_token());
  REQUIRE(taken.is_ok());
  CHECK(*taken == std::vector<std::string>{"a"});
  // Ours is alive (this process): nobody else takes it.
  auto other = state.claim_runs(3, RetryPolicy{}, "elsewhere:1:1");
  REQUIRE(other.is_ok());
  CHECK(other->empty());
}

// A claim's age, as if its holder last renewed it `seconds` ago.
void age_claims(StudyState& state, int seconds) {
  REQUIRE(state.database()
              .query("UPDATE runs SET claimed_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', ?)",
                     {"-" + std::to_string(seconds) + " seconds"})
              .is_ok());
}

TEST_CASE("a claim not renewed for its lease is taken over, whichever host held it") {
  StudyState state = fresh_state("scalestudy_state_lease.sqlite");
  REQUIRE(state.plan_runs({planned("a")}).is_ok());
  // A submitter on another login node, whose pid nobody here can ask about.
  REQUIRE(state.claim_runs(3, RetryPolicy{}, "login2:4242:7").is_ok());
  const int lease_s = static_cast<int>(kClaimLease.count());
  age_claims(state, lease_s - 60);
  CHECK(state.claim_runs(3, RetryPolicy{}, "t:1:early")->empty());
  // It renews: young again.
  age_claims(state, lease_s + 60);
  REQUIRE(state.renew_claims("login2:4242:7").is_ok());
  CHECK(state.claim_runs(3, RetryPolicy{}, "t:1:renewed")->empty());
  // It stops renewing (it died): the lease runs out and the claim is taken over.
  age_claims(state, lease_s + 60);
  auto taken = state.claim_runs(3, RetryPolicy{}, "t:1:late");
  REQUIRE(taken.is_ok());
  CHECK(*taken == std::vector<std::string>{"a"});
  // The late holder can no longer record a submission under the claim it lost.
  CHECK_FALSE(state.record_submission({"a", "17"}, "slurm", "login2:4242:7").is_ok());
  CHECK(state.record_submission({"a", "18"}, "slurm", "t:1:late").is_ok());
}

TEST_CASE("runs dropped from the plan keep their history but leave the study's runs") {
  StudyState state = fresh_state("scalestudy_state_replan.sqlite");
  REQUIRE(state.plan_runs({planned("old"), planned("kept")}).is_ok());
  REQUIRE(state.plan_runs({planned("kept"), planned("new")}).is_ok());
  auto runs = state.runs();
  REQUIRE(runs.is_ok());
  REQUIRE(runs->size() == 2);
  CHECK((*runs)[0].run_id == "kept");
  CHECK((*runs)[1].run_id == "new");
  auto claimed = state.claim_runs(3, RetryPolicy{}, "t:1:1");
  REQUIRE(claimed.is_ok());
  CHECK(*claimed == std::vector<std::string>{"kept", "new"});
  auto old_row = state.database().query_value("SELECT planned FROM runs WHERE run_id = 'old'");
  REQUIRE(old_row.is_ok());
  CHECK(std::get<int64_t>(**old_row) == 0);
}

TEST_CASE("run directories stored relative to the results dir read back absolute") {
  StudyState state = fresh_state("scalestudy_state_relative.sqlite");
  REQUIRE(state.save_study({"demo", "strong", "/s/demo.yaml", "{}", "{}", 2}).is_ok());
  PlannedRun relative = planned("r");
  relative.out_dir = run_layout::study_run_dir("demo", "r");
  CHECK(relative.out_dir == "demo/runs/r");
  REQUIRE(state.plan_runs({relative, planned("a")}).is_ok());
  CHECK(scalestudy::testing::run_record_of(state, "r").out_dir ==
        (fs::temp_directory_path() / "demo" / "runs" / "r").lexically_normal().string());
  CHECK(scalestudy::testing::run_record_of(state, "a").out_dir == "/tmp/demo/runs/a");
}

TEST_CASE("a job requeued under its id is a new attempt; completed, it keeps no pending reason") {
  using scalestudy::common::JobState;
  for (bool restart_count_known : {true, false}) {
    CAPTURE(restart_count_known);
    StudyState state = fresh_state("scalestudy_state_requeue.sqlite");
    REQUIRE(state.save_study({"demo", "strong", "/s/demo.yaml", "{}", "{}", 3}).is_ok());
    REQUIRE(state.plan_runs({planned("a")}).is_ok());
    REQUIRE(state.claim_runs(3, RetryPolicy{}, "host:1:me").is_ok());
    REQUIRE(state.record_submission({"a", "42"}, "slurmrest", "host:1:me").is_ok());
    const int restarts = restart_count_known ? 1 : 0;
    REQUIRE(state.record_job_status("a", "42", {JobState::kRunning, std::nullopt, ""}).is_ok());
    // Its node died: SLURM requeued it, and it waits for its new begin time.
    REQUIRE(
        state
            .record_job_status("a", "42", {JobState::kPending, std::nullopt, "BeginTime", restarts})
            .is_ok());
    REQUIRE(state.record_job_status("a", "42", {JobState::kRunning, std::nullopt, "", restarts})
                .is_ok());
    REQUIRE(state.record_job_status("a", "42", {JobState::kCompleted, 0, "", restarts}).is_ok());
    // A later poll with the same restart count changes nothing.
    REQUIRE(state.record_job_status("a", "42", {JobState::kCompleted, 0, "", restarts}).is_ok());

    RunRecord a = scalestudy::testing::run_record_of(state, "a");
    CHECK(a.state == "COMPLETED");
    CHECK(a.reason.empty());
    CHECK(a.attempts == 2);
    auto attempts = state.attempts("a");
    REQUIRE(attempts.is_ok());
    REQUIRE(attempts->size() == 2);
    CHECK((*attempts)[0].state == "REQUEUED");
    CHECK((*attempts)[0].job_id == "42");
    CHECK((*attempts)[0].reason.find("requeued") == 0);
    CHECK_FALSE((*attempts)[0].finished_at.empty());
    CHECK((*attempts)[1].state == "COMPLETED");
    CHECK((*attempts)[1].job_id == "42");
    CHECK((*attempts)[1].reason.empty());
  }
}

TEST_CASE("the last submit's scheduler and options are kept, one row, replaced") {
  StudyState state = fresh_state("scalestudy_state_choices.sqlite");
  auto none = state.submit_choices();
  REQUIRE(none.is_ok());
  CHECK_FALSE(*none);
  REQUIRE(state.save_submit_choices({"slurm", {"--no-arrays", "--packed"}}).is_ok());
  REQUIRE(state.save_submit_choices({"local", {"--max-parallel", "2"}}).is_ok());
  auto kept = state.submit_choices();
  REQUIRE(kept.is_ok());
  REQUIRE(*kept);
  CHECK((*kept)->scheduler == "local");
  CHECK((*kept)->options == std::vector<std::string>{"--max-parallel", "2"});
  auto rows = state.database().query("SELECT count(*) FROM submit_choices");
  REQUIRE(rows.is_ok());
  CHECK(std::get<int64_t>(rows->front()[0]) == 1);
}
