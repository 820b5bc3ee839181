// StudyState: the scheduling half of results/<study>.sqlite (docs/study-database.md):
// the study row, one row per planned run with its current state and job, and every
// submission attempt. Every write is one BEGIN IMMEDIATE transaction, so concurrent
// `scalestudy submit`s of one study serialise on the database lock: a run is claimed
// (PLANNED/retryable -> SUBMITTING, with the claimer's token) before any scheduler call,
// and only the holder of the claim may record its submission. One StudyState per thread;
// processes coordinate through SQLite's locking.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/campaign/retry_verdict.hpp"
#include "orchestrator/campaign/study_state_failures.hpp"
#include "orchestrator/common/job_state.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::campaign {

// Run states beyond the scheduler's JobState names.
inline constexpr const char* kStatePlanned = "PLANNED";        // not submitted (yet / again)
inline constexpr const char* kStateSubmitting = "SUBMITTING";  // claimed by a submit process
inline constexpr const char* kStateSubmitted = "SUBMITTED";    // has a job id, not yet polled
// A claim's life: its holder renews it every kClaimRenewal (ClaimLease); one not renewed for
// kClaimLease is a dead submitter's and is taken over, on whatever host it ran. Ten
// renewals long: a holder slowed by a busy database or host keeps its claims.
inline constexpr std::chrono::seconds kClaimRenewal{60};
inline constexpr std::chrono::seconds kClaimLease{600};
// The reason of a PLANNED run that a site submit limit held back (launch_prepared); a later
// wave submits it.
inline constexpr const char* kReasonWaitingForSlot = "waiting for a free submit slot";
// The reason of a PLANNED run whose packed allocation ended before its step started: it
// used no attempt, and the next submission (run, wait, submit) takes it again.
inline constexpr const char* kReasonNotReached = "not reached";

struct StudyRecord {
  std::string name;
  std::string kind;  // strong | weak | sensitivity | custom
  std::string source_path;
  std::string baseline_json = "{}";
  std::string report_json = "{}";
  int max_attempts = 3;
  RetryPolicy retry;  // study.policy_json
};

// What a submit was told beyond the study, kept for `wait`'s later waves.
struct SubmitChoices {
  std::string scheduler;
  std::vector<std::string> options;  // its command-line options as given: "--max-parallel", "2"
};

struct RunRecord {
  std::string run_id;
  int repeat = 0;
  int nodes = 1, tasks_per_node = 1, world_size = 1, gpus_per_node = 0;
  std::string varied_json;
  std::string state;
  int attempts = 0;
  std::string scheduler, job_id, reason;
  std::string submitted_at, started_at, finished_at;
  std::string out_dir;
  // The class of the latest attempt's failure ("" when it did not fail) with its evidence,
  // and every attempt's failures by class.
  std::string failure_class, failure_evidence;
  FailureCounts failures;
  // The backend settings of the run's named system (a slurmrestd URL, ...): polling and
  // cancelling its job needs them. Empty without one.
  std::map<std::string, std::string> scheduler_settings;
};

struct AttemptRecord {
  std::string run_id;
  int attempt = 0;
  std::string scheduler, job_id, state, reason, submitted_at, finished_at;
  std::string failure_class, failure_evidence;  // "" for an attempt that did not fail
  std::string node_list;                        // where it ran, when known
};

// A RunSpec with the directory its results go to.
struct PlannedRun {
  RunSpec spec;
  std::string out_dir;
};

class StudyState {
 public:
  // Opens (creating it and the schema if needed) the study database at `path`.
  static Result<StudyState> open(const std::string& path);
  // Opens an existing study database; an error if there is none.
  static Result<StudyState> open_existing(const std::string& path);

  Status save_study(const StudyRecord& study);
  Result<std::optional<StudyRecord>> study();
  // Records the database's campaign (campaign_name.hpp; "" the default one) the first
  // time, made now or, for a database from before campaigns, at its first submission;
  // later calls keep the first record. `history` reads it (docs/study-database.md).
  Status save_campaign(const std::string& name);
  // Replaces the recorded choices of the last submit; none before a first submit.
  Status save_submit_choices(const SubmitChoices& choices);
  Result<std::optional<SubmitChoices>> submit_choices();

  // Inserts new runs as PLANNED and refreshes the spec columns of known ones (state and
  // history kept). Runs no longer in `runs` (an edited YAML) stay for history but leave the
  // plan: runs() and claims ignore them.
  Status plan_runs(const std::vector<PlannedRun>& runs);

  // Claims, atomically, every planned run that needs a submission: PLANNED with fewer
  // charged attempts than max_attempts, or (unless planned_only) finished unsuccessfully and
  // retried by the policy (wants_retry), plus runs
  // whose SUBMITTING claim is stale: not renewed for kClaimLease, or held by a dead process
  // on this host. Returns the claimed run ids.
  // `only` (when set) limits the claim to those runs: one scheduler's share of a study
  // planned on several systems.
  Result<std::vector<std::string>> claim_runs(int max_attempts, const RetryPolicy& retry,
                                              const std::string& claim_token,
                                              bool planned_only = false,
                                              const std::set<std::string>* only = nullptr);
  // The claimed run got a job: SUBMITTED, attempts + 1, an attempts row. An error if the
  // claim is not (any more) held under `claim_token`.
  Status record_submission(const sched::Submission& submission, const std::string& scheduler,
                           const std::string& claim_token);
  // The claims `claim_token` holds are alive now (ClaimLease calls this every kClaimRenewal).
  Status renew_claims(const std::string& claim_token);
  // The claimed run was not submitted (an error, or a dry run): back to PLANNED. A run held
  // back for a later wave keeps the `scheduler` that is to submit it (empty: unchanged).
  Status release_claim(const std::string& run_id, const std::string& claim_token,
                       const std::string& reason, const std::string& scheduler = "");
  // A poll (or a backend running jobs inside submit) learned the state of `job_id`. Ignored when
  // the run has moved on to another job, or when a stale non-terminal state would overwrite a final
  // one. A requeue (status.restarts above the attempts recorded for the job, or a running job
  // pending again) closes the current attempt as REQUEUED and opens the next (attempts + 1).
  // A run that never started (status.never_started) is PLANNED again with its attempt
  // taken back (kReasonNotReached): an attempt counts an execution. An attempt that ended
  // unsuccessfully gets its failure class, decided here from the status and the run's logs
  // (attempt_failure.hpp).
  Status record_job_status(const std::string& run_id, const std::string& job_id,
                           const common::JobStatus& status);

  // Claims a profiled run (`scalestudy profile`) under `claim_token`: inserts it, or takes
  // back its row when that is neither in flight, completed nor held by a live claim, as
  // SUBMITTING with profiled = 1 (claim_runs would claim every planned run of the study).
  // Returns the state of a run in flight, completed or claimed, which is left alone; else
  // nothing.
  Result<std::optional<std::string>> register_profiled_run(const RunSpec& spec,
                                                           const std::string& out_dir,
                                                           const std::string& claim_token);
  // The run's state; empty when there is no such run.
  Result<std::string> run_state(const std::string& run_id);

  // The runs of the current plan, ordered by run id.
  Result<std::vector<RunRecord>> runs();
  Result<std::vector<AttemptRecord>> attempts(const std::string& run_id);
  // The nodes the next attempt of `run_id` leaves out (study_state_failures).
  Result<std::vector<std::string>> nodes_to_exclude(const std::string& run_id, bool flagged_too);

  sqlite::Database& database() { return db_; }

 private:
  explicit StudyState(sqlite::Database db) : db_(std::move(db)) {}
  static Result<StudyState> initialise(Result<sqlite::Database> db);

  // Inside a transaction: the run's current attempt ends REQUEUED, the next one begins.
  Status close_requeued_attempt(const std::string& run_id, const std::string& now);
  // Inside a transaction: the run's current attempt never started; it is undone.
  Status take_back_attempt(const std::string& run_id, const std::string& reason);
  sqlite::Database db_;
};

// A token naming this process ("host:pid:nonce") for claim_runs.
std::string make_claim_token();

// True for run states that a scheduler still holds (SUBMITTED, PENDING, RUNNING).
bool is_in_flight(const std::string& run_state);

// The retry verdict on a run that finished unsuccessfully (retry_verdict; a run failed
// before failure classes were recorded counts as unknown); nullopt for any other run.
std::optional<RetryVerdict> run_retry_verdict(const RunRecord& run, int max_attempts,
                                              const RetryPolicy& retry);
// True when a run will not be submitted again: finished without success, and its policy
// retries it no more.
bool is_exhausted(const RunRecord& run, int max_attempts, const RetryPolicy& retry);
// True for a run that finished without success and is to be submitted again.
bool wants_retry(const RunRecord& run, int max_attempts, const RetryPolicy& retry);
// "FAILED after 1 attempt [program]: rank0.log: ValueError: boom" for exhausted runs.
std::string failure_summary(const RunRecord& run);

}  // namespace scalestudy::campaign
