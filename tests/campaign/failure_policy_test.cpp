// Failure classes in the study database and retries by class: an attempt's class and
// evidence are decided from its status and its run's logs when its end is recorded; the
// policy retries by class (program not by default, node without using max_attempts); a
// retry after a node failure leaves the node out; a database of an earlier scalestudy
// gets the new columns.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/campaign/retry_verdict.hpp"
#include "orchestrator/campaign/status_report.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/campaign/wait.hpp"
#include "tests/support/study_state_support.hpp"

using namespace scalestudy;
using namespace scalestudy::campaign;
using common::FailureClass;
using common::JobState;
namespace fs = std::filesystem;

namespace {

fs::path fresh_folder(const char* name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

PlannedRun planned_in(const std::string& run_id, const fs::path& out_dir) {
  return scalestudy::testing::planned_run(run_id, out_dir.string());
}

void submit_one(StudyState& state, const std::string& run_id, const std::string& job,
                int max_attempts = 3, const RetryPolicy& policy = {}) {
  auto claimed = state.claim_runs(max_attempts, policy, "t:1:" + job);
  REQUIRE(claimed.is_ok());
  REQUIRE(claimed->size() == 1);
  REQUIRE(state.record_submission({run_id, job}, "slurm", "t:1:" + job).is_ok());
}

// Claims `run_id`, records its submission as `job` and its end in `end` on `nodes`.
void fail_on(StudyState& state, const std::string& run_id, const std::string& job, JobState end,
             const std::string& nodes) {
  const std::set<std::string> only = {run_id};
  auto claimed = state.claim_runs(5, RetryPolicy{}, "t:1:" + job, false, &only);
  REQUIRE(claimed->size() == 1);
  REQUIRE(state.record_submission({run_id, job}, "slurm", "t:1:" + job).is_ok());
  common::JobStatus status{end, 1, ""};
  status.placement.node_list = nodes;
  REQUIRE(state.record_job_status(run_id, job, status).is_ok());
}

}  // namespace

TEST_CASE("a traceback is recorded as program with its last line, and not retried by default") {
  fs::path dir = fresh_folder("scalestudy_failure_program");
  auto state = StudyState::open((dir / "demo.sqlite").string());
  REQUIRE(state.is_ok());
  fs::path out = dir / "runs" / "a";
  fs::create_directories(out);
  std::ofstream(out / "rank0.log") << "step 1\nTraceback (most recent call last):\n"
                                      "  File \"t.py\", line 1\nKeyError: 'lr'\n";
  REQUIRE(state->plan_runs({planned_in("a", out)}).is_ok());
  submit_one(*state, "a", "7");
  REQUIRE(state->record_job_status("a", "7", {JobState::kFailed, 1, "exit code 1"}).is_ok());

  RunRecord run = scalestudy::testing::run_record_of(*state, "a");
  CHECK(run.failure_class == "program");
  CHECK(run.failure_evidence == "rank0.log: KeyError: 'lr'");
  CHECK(run.failures.at(FailureClass::kProgram) == 1);
  CHECK(is_exhausted(run, 3, RetryPolicy{}));
  CHECK(state->claim_runs(3, RetryPolicy{}, "t:1:again")->empty());
  CHECK(failure_summary(run) == "FAILED after 1 attempt [program]: rank0.log: KeyError: 'lr'");
  auto attempts = state->attempts("a");
  REQUIRE(attempts.is_ok());
  CHECK((*attempts)[0].failure_class == "program");

  // A study that asks for retries of program failures gets them.
  RetryPolicy retried;
  retried.program_retries = 1;
  CHECK(state->claim_runs(3, retried, "t:1:asked")->size() == 1);
}

TEST_CASE("node failures are retried without using max_attempts, on other nodes") {
  fs::path dir = fresh_folder("scalestudy_failure_node");
  auto state = StudyState::open((dir / "demo.sqlite").string());
  REQUIRE(state.is_ok());
  REQUIRE(state->plan_runs({planned_in("a", dir / "runs" / "a")}).is_ok());
  // max_attempts 1: the node failures below must not use it up.
  for (const char* job : {"11", "12"}) {
    submit_one(*state, "a", job, 1);
    common::JobStatus lost{JobState::kNodeFail, std::nullopt, ""};
    lost.placement.node_list = std::string(job) == "11" ? "node[1-2]" : "node3";
    REQUIRE(state->record_job_status("a", job, lost).is_ok());
    CHECK(scalestudy::testing::run_record_of(*state, "a").failure_class == "node");
  }
  auto excluded = state->nodes_to_exclude("a", false);
  REQUIRE(excluded.is_ok());
  CHECK(*excluded == std::vector<std::string>{"node[1-2]", "node3"});
  submit_one(*state, "a", "13", 1);
  REQUIRE(state->record_job_status("a", "13", {JobState::kCompleted, 0, ""}).is_ok());
  RunRecord run = scalestudy::testing::run_record_of(*state, "a");
  CHECK(run.state == "COMPLETED");
  CHECK(run.attempts == 3);
  CHECK(run.failure_class.empty());

  // Past max_node_failures the run is left failed.
  RetryPolicy strict;
  strict.max_node_failures = 1;
  run.state = "NODE_FAIL";
  run.failure_class = "node";
  CHECK(is_exhausted(run, 1, strict));
  CHECK_FALSE(is_exhausted(run, 1, RetryPolicy{}));
}

TEST_CASE("the node table counts failures by class and flags nodes that failed twice") {
  fs::path dir = fresh_folder("scalestudy_failure_nodes");
  auto state = StudyState::open((dir / "demo.sqlite").string());
  REQUIRE(state.is_ok());
  REQUIRE(
      state->plan_runs({planned_in("a", dir / "runs" / "a"), planned_in("b", dir / "runs" / "b")})
          .is_ok());
  fail_on(*state, "a", "1", JobState::kNodeFail, "n[1-2]");
  fail_on(*state, "b", "2", JobState::kNodeFail, "n2");
  fail_on(*state, "b", "3", JobState::kTimeout, "n1");
  auto failed = common::read_failed_attempts(state->database());
  REQUIRE(failed.is_ok());
  auto nodes = std::optional(common::count_node_failures(*failed));
  REQUIRE(nodes->size() == 2);
  CHECK((*nodes)[0].node == "n1");
  CHECK((*nodes)[0].failures.at(FailureClass::kNode) == 1);
  CHECK((*nodes)[0].failures.at(FailureClass::kTime) == 1);
  CHECK_FALSE((*nodes)[0].flagged);
  CHECK((*nodes)[1].node == "n2");
  CHECK((*nodes)[1].flagged);
  // Run b's own node failure was on n2; with exclude_flagged_nodes run a leaves n2 out too.
  CHECK(*state->nodes_to_exclude("a", true) == std::vector<std::string>{"n[1-2]", "n2"});

  auto progress = study_progress(*state);
  REQUIRE(progress.is_ok());
  CHECK(progress->failed_attempts.size() == 3);
  CHECK(progress->nodes.size() == 2);
}

TEST_CASE("the node table counts the other studies of the results folder too") {
  fs::path dir = fresh_folder("scalestudy_failure_nodes_folder");
  auto here = StudyState::open((dir / "demo.sqlite").string());
  auto other = StudyState::open((dir / "other@week2.sqlite").string());
  REQUIRE(here.is_ok());
  REQUIRE(other.is_ok());
  REQUIRE(here->plan_runs({planned_in("a", dir / "runs" / "a")}).is_ok());
  REQUIRE(other->plan_runs({planned_in("x", dir / "runs" / "x")}).is_ok());
  fail_on(*here, "a", "1", JobState::kNodeFail, "n1");
  fail_on(*other, "x", "7", JobState::kNodeFail, "n[1,3]");
  // Not a study database: passed over.
  auto history = scalestudy::sqlite::Database::open((dir / "history.sqlite").string());
  REQUIRE(history->query("CREATE TABLE campaigns (name TEXT)").is_ok());

  auto progress = study_progress(*here);
  REQUIRE_MESSAGE(progress.is_ok(), progress.status().message());
  CHECK(progress->failed_attempts.size() == 1);  // this study's own
  REQUIRE(progress->nodes.size() == 2);
  CHECK(progress->nodes[0].node == "n1");
  CHECK(progress->nodes[0].failures.at(FailureClass::kNode) == 1);
  CHECK(progress->nodes[0].elsewhere.at(FailureClass::kNode) == 1);
  CHECK(progress->nodes[0].flagged);  // one node failure here, one in the other study
  CHECK(progress->nodes[1].node == "n3");
  CHECK(progress->nodes[1].failures.empty());
  CHECK_FALSE(progress->nodes[1].flagged);
  CHECK(*here->nodes_to_exclude("a", true) == std::vector<std::string>{"n1"});
  const std::string table = nodes_table(*progress);
  CHECK(table.find("other studies in the results folder") != std::string::npos);
  const auto json = status_json("demo", *progress);
  CHECK(json["nodes"][0]["other_studies"]["node"] == 1);
}

TEST_CASE("the retry verdict by class") {
  const RetryPolicy policy;
  CHECK_FALSE(
      retry_verdict(3, policy, 1, {{FailureClass::kProgram, 1}}, FailureClass::kProgram).retry);
  CHECK(retry_verdict(3, policy, 1, {{FailureClass::kProgram, 1}}, FailureClass::kProgram).why ==
        "program failures are not retried (policy.retry.program: 0)");
  CHECK_FALSE(retry_verdict(3, policy, 1, {{FailureClass::kSetup, 1}}, FailureClass::kSetup).retry);
  CHECK(retry_verdict(3, policy, 1, {{FailureClass::kTime, 1}}, FailureClass::kTime).retry);
  CHECK_FALSE(retry_verdict(3, policy, 2, {{FailureClass::kTime, 2}}, FailureClass::kTime).retry);
  CHECK(retry_verdict(3, policy, 1, {{FailureClass::kHang, 1}}, FailureClass::kHang).retry);
  // unknown (and runs failed before classes were recorded) keep max_attempts alone.
  CHECK(retry_verdict(3, policy, 2, {}, FailureClass::kUnknown).retry);
  CHECK_FALSE(retry_verdict(3, policy, 3, {}, FailureClass::kUnknown).retry);
  // Three node failures and a preemption use no attempt; a fourth of them ends it.
  CHECK(retry_verdict(1, policy, 4, {{FailureClass::kNode, 2}, {FailureClass::kPreempted, 1}},
                      FailureClass::kNode)
            .retry);
  CHECK_FALSE(retry_verdict(1, policy, 4, {{FailureClass::kNode, 3}, {FailureClass::kPreempted, 1}},
                            FailureClass::kNode)
                  .retry);
  CHECK(charged_attempts(4, {{FailureClass::kNode, 3}}) == 1);
  // Time limits met with a checkpoint: each attempt resumed, within max_attempts alone.
  CHECK(retry_verdict(12, policy, 5, {{FailureClass::kTime, 5}}, FailureClass::kTime, true).retry);
  CHECK_FALSE(
      retry_verdict(5, policy, 5, {{FailureClass::kTime, 5}}, FailureClass::kTime, true).retry);

  RetryPolicy custom;
  custom.program_retries = 2;
  custom.exclude_flagged_nodes = true;
  RetryPolicy back = retry_policy_from_json(retry_policy_json(custom));
  CHECK(back.program_retries == 2);
  CHECK(back.exclude_flagged_nodes);
  CHECK_FALSE(back.hang_after_s.has_value());  // unset stays unset: the launcher's default
  custom.hang_after_s = 0;
  CHECK(retry_policy_from_json(retry_policy_json(custom)).hang_after_s == 0);
  CHECK(retry_policy_from_json("{}").time_retries == 1);
}

TEST_CASE("a study database of an earlier scalestudy gets the failure columns") {
  fs::path dir = fresh_folder("scalestudy_failure_migration");
  const std::string path = (dir / "old.sqlite").string();
  {
    auto db = sqlite::Database::open(path);
    REQUIRE(db.is_ok());
    // The state tables as scalestudy wrote them before failure classes.
    REQUIRE(db->exec("CREATE TABLE study (name TEXT PRIMARY KEY, kind TEXT NOT NULL, source_path "
                     "TEXT NOT NULL, baseline_json TEXT NOT NULL, report_json TEXT NOT NULL "
                     "DEFAULT '{}', max_attempts INTEGER NOT NULL DEFAULT 3);"
                     "CREATE TABLE attempts (run_id TEXT NOT NULL, attempt INTEGER NOT NULL, "
                     "scheduler TEXT NOT NULL, job_id TEXT NOT NULL, state TEXT NOT NULL, reason "
                     "TEXT, submitted_at TEXT NOT NULL, finished_at TEXT, PRIMARY KEY (run_id, "
                     "attempt));"
                     "INSERT INTO study VALUES ('old', 'strong', '/s.yaml', '{}', '{}', 2);"
                     "INSERT INTO attempts VALUES ('a', 1, 'slurm', '5', 'FAILED', 'x', 't', 't');")
                .is_ok());
  }
  auto state = StudyState::open_existing(path);
  REQUIRE(state.is_ok());
  auto study = state->study();
  REQUIRE(study.is_ok());
  CHECK((*study)->max_attempts == 2);
  CHECK((*study)->retry.max_node_failures == 3);  // the default, from policy_json '{}'
  auto attempts = state->attempts("a");
  REQUIRE(attempts.is_ok());
  REQUIRE(attempts->size() == 1);
  CHECK((*attempts)[0].failure_class.empty());
  CHECK(state->database()
            .query_value("SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = "
                         "'failure_evidence'")
            ->value() == sqlite::Value(int64_t{1}));
}
