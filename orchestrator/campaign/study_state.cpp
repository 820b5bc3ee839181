#include "orchestrator/campaign/study_state.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "orchestrator/campaign/attempt_failure.hpp"
#include "orchestrator/campaign/campaign_name.hpp"
#include "orchestrator/campaign/run_spec_json.hpp"
#include "orchestrator/campaign/study_state_migration.hpp"
#include "orchestrator/campaign/study_state_placement.hpp"
#include "orchestrator/campaign/study_state_schema.hpp"
#include "orchestrator/common/empty_database_check.hpp"
#include "orchestrator/common/results_path.hpp"
#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/study/workload_params.hpp"

namespace scalestudy::campaign {
namespace {

using sqlite::Value;

int int_of(const Value& value) {
  return static_cast<int>(sqlite::integer_of(value));
}

// A SLURM job's limit and the lead of the warning signal its script asks for.
common::TimeLimit slurm_time_limit(const std::string& scheduler, int minutes) {
  if ((scheduler != "slurm" && scheduler != "slurmrest") || minutes <= 0) return {};
  return {minutes * 60, term_signal_lead_seconds(minutes)};
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// A SUBMITTING claim whose holder is gone: on this host, its process no longer alive
// (whatever the claim's age: a live submitter whose renewals fail keeps it); on another
// host, where no pid can be asked, not renewed for kClaimLease.
bool claim_is_stale(const std::string& token, const std::string& claimed_at) {
  size_t first = token.find(':');
  size_t second = first == std::string::npos ? first : token.find(':', first + 1);
  if (second != std::string::npos && token.substr(0, first) == host_name()) {
    pid_t pid = static_cast<pid_t>(std::atol(token.substr(first + 1, second - first - 1).c_str()));
    if (pid > 0) return kill(pid, 0) != 0 && errno == ESRCH;
  }
  const auto renewed = common::parse_utc_timestamp(claimed_at);
  return !renewed || std::time(nullptr) - *renewed > kClaimLease.count();
}

}  // namespace

Result<std::optional<std::string>> StudyState::register_profiled_run(
    const RunSpec& spec, const std::string& out_dir, const std::string& claim_token) {
  std::optional<std::string> present;
  Status claimed = sqlite::in_transaction(db_, [&]() -> Status {
    auto existing = db_.query("SELECT state, claim_token, claimed_at FROM runs WHERE run_id = ?",
                              {spec.run_id});
    if (!existing) return existing.status();
    if (!existing->empty()) {
      const auto& row = (*existing)[0];
      const std::string current = sqlite::to_string(row[0]);
      const bool held = current == kStateSubmitting &&
                        !claim_is_stale(sqlite::to_string(row[1]), sqlite::to_string(row[2]));
      if (current == "COMPLETED" || is_in_flight(current) || held) {
        present = current;
        return Status::ok();
      }
    }
    auto upsert = db_.query(
        "INSERT INTO runs(run_id, repeat, nodes, tasks_per_node, world_size, gpus_per_node, "
        "global_batch, per_gpu_batch, varied_json, params_json, spec_json, profiled, state, "
        "out_dir, planned, claim_token, claimed_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 'SUBMITTING', ?, 1, ?, ?) "
        "ON CONFLICT(run_id) DO UPDATE SET state = 'SUBMITTING', profiled = 1, planned = 1, "
        "claim_token = excluded.claim_token, claimed_at = excluded.claimed_at",
        {spec.run_id, int64_t{spec.repeat}, int64_t{spec.nodes}, int64_t{spec.tasks_per_node},
         int64_t{spec.world_size}, int64_t{spec.slurm.gpus_per_node}, int64_t{spec.global_batch},
         int64_t{spec.per_gpu_batch}, nlohmann::json(spec.varied).dump(),
         nlohmann::json(workload_params(spec)).dump(), run_spec_to_json(spec).dump(), out_dir,
         claim_token, common::utc_now_iso8601()});
    return upsert.status();
  });
  if (!claimed) return claimed.with_context("registering profiled run " + spec.run_id);
  return present;
}

Result<std::string> StudyState::run_state(const std::string& run_id) {
  auto state = db_.query_value("SELECT state FROM runs WHERE run_id = ?", {run_id});
  if (!state) return state.status();
  return *state ? sqlite::to_string(**state) : std::string();
}

bool is_in_flight(const std::string& run_state) {
  return run_state == kStateSubmitted || run_state == "PENDING" || run_state == "RUNNING";
}

std::string make_claim_token() {
  std::random_device entropy;
  return host_name() + ":" + std::to_string(getpid()) + ":" + std::to_string(entropy());
}

std::optional<RetryVerdict> run_retry_verdict(const RunRecord& run, int max_attempts,
                                              const RetryPolicy& retry) {
  auto state = common::parse_job_state(run.state);
  if (!state || !common::is_retryable(*state)) return std::nullopt;
  const auto last =
      common::parse_failure_class(run.failure_class).value_or(common::FailureClass::kUnknown);
  return retry_verdict(max_attempts, retry, run.attempts, run.failures, last,
                       common::resumes_from_checkpoint(run.failure_evidence));
}

bool is_exhausted(const RunRecord& run, int max_attempts, const RetryPolicy& retry) {
  auto verdict = run_retry_verdict(run, max_attempts, retry);
  return verdict && !verdict->retry;
}

bool wants_retry(const RunRecord& run, int max_attempts, const RetryPolicy& retry) {
  auto verdict = run_retry_verdict(run, max_attempts, retry);
  return verdict && verdict->retry;
}

std::string failure_summary(const RunRecord& run) {
  std::string summary = run.state + " after " + std::to_string(run.attempts) +
                        (run.attempts == 1 ? " attempt" : " attempts");
  if (!run.failure_class.empty()) {
    return summary + " [" + run.failure_class + "]: " + run.failure_evidence;
  }
  return run.reason.empty() ? summary : summary + ": " + run.reason;
}

Result<StudyState> StudyState::initialise(Result<sqlite::Database> db) {
  if (!db) return db.status();
  if (Status wal = db->use_wal(); !wal) return wal;
  // A database of an earlier scalestudy gets the columns added since.
  Status schema = sqlite::in_transaction(*db, [&]() -> Status {
    if (Status made = db->exec(kStudySchemaSql); !made) return made;
    return add_missing_columns(*db, kStudySchemaSql);
  });
  if (!schema) {
    return schema;
  }
  return StudyState(std::move(*db));
}

Result<StudyState> StudyState::open(const std::string& path) {
  std::error_code ignored;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  return initialise(sqlite::Database::open(path));
}

Result<StudyState> StudyState::open_existing(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    return Status::error(path + ": no study database (submit the study first)");
  }
  if (Status empty = common::refuse_empty_database(path); !empty) return empty;
  return initialise(sqlite::Database::open(path, sqlite::OpenMode::kReadWrite));
}

Status StudyState::save_study(const StudyRecord& study) {
  return sqlite::in_transaction(db_, [&]() -> Status {
    auto saved = db_.query(
        "INSERT INTO study(name, kind, source_path, baseline_json, report_json, max_attempts, "
        "policy_json) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
        "kind = excluded.kind, source_path = excluded.source_path, "
        "baseline_json = excluded.baseline_json, report_json = excluded.report_json, "
        "max_attempts = excluded.max_attempts, policy_json = excluded.policy_json",
        {study.name, study.kind, study.source_path, study.baseline_json, study.report_json,
         int64_t{study.max_attempts}, retry_policy_json(study.retry)});
    return saved.status();
  });
}

Result<std::optional<StudyRecord>> StudyState::study() {
  auto rows = db_.query(
      "SELECT name, kind, source_path, baseline_json, report_json, max_attempts, policy_json "
      "FROM study");
  if (!rows) return rows.status();
  if (rows->empty()) return std::optional<StudyRecord>();
  const auto& row = rows->front();
  return std::optional<StudyRecord>(
      StudyRecord{sqlite::to_string(row[0]), sqlite::to_string(row[1]), sqlite::to_string(row[2]),
                  sqlite::to_string(row[3]), sqlite::to_string(row[4]), int_of(row[5]),
                  retry_policy_from_json(sqlite::to_string(row[6]))});
}

Status StudyState::save_campaign(const std::string& name) {
  // A database from before campaigns was made when its first attempt was submitted.
  auto saved = db_.query(
      "INSERT OR IGNORE INTO campaign(only_row, name, created_at) "
      "VALUES (1, ?, COALESCE((SELECT MIN(submitted_at) FROM attempts), ?))",
      {name.empty() ? std::string(kDefaultCampaign) : name, common::utc_now_iso8601()});
  return saved.status();
}

Status StudyState::save_submit_choices(const SubmitChoices& choices) {
  auto saved = db_.query(
      "INSERT INTO submit_choices(only_row, scheduler, options_json, recorded_at) "
      "VALUES (1, ?, ?, ?) ON CONFLICT(only_row) DO UPDATE SET scheduler = excluded.scheduler, "
      "options_json = excluded.options_json, recorded_at = excluded.recorded_at",
      {choices.scheduler, nlohmann::json(choices.options).dump(), common::utc_now_iso8601()});
  return saved.status();
}

Result<std::optional<SubmitChoices>> StudyState::submit_choices() {
  auto rows = db_.query("SELECT scheduler, options_json FROM submit_choices");
  if (!rows) return rows.status();
  if (rows->empty()) return std::optional<SubmitChoices>();
  auto options = nlohmann::json::parse(sqlite::to_string(rows->front()[1]), nullptr, false);
  if (!options.is_array()) {
    return Status::error("submit_choices.options_json is not a JSON array: " +
                         sqlite::to_string(rows->front()[1]));
  }
  SubmitChoices choices{sqlite::to_string(rows->front()[0]), {}};
  for (const auto& option : options) {
    if (!option.is_string()) return Status::error("submit_choices.options_json holds a non-string");
    choices.options.push_back(option.get<std::string>());
  }
  return std::optional<SubmitChoices>(std::move(choices));
}

Status StudyState::plan_runs(const std::vector<PlannedRun>& runs) {
  return sqlite::in_transaction(db_, [&]() -> Status {
    if (Status cleared = db_.exec("UPDATE runs SET planned = 0"); !cleared) return cleared;
    auto upsert = db_.prepare(
        "INSERT INTO runs(run_id, repeat, nodes, tasks_per_node, world_size, gpus_per_node, "
        "global_batch, per_gpu_batch, varied_json, params_json, spec_json, profiled, state, "
        "out_dir, planned) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PLANNED', ?, 1) "
        "ON CONFLICT(run_id) DO UPDATE SET repeat = excluded.repeat, nodes = excluded.nodes, "
        "tasks_per_node = excluded.tasks_per_node, world_size = excluded.world_size, "
        "gpus_per_node = excluded.gpus_per_node, global_batch = excluded.global_batch, "
        "per_gpu_batch = excluded.per_gpu_batch, varied_json = excluded.varied_json, "
        "params_json = excluded.params_json, spec_json = excluded.spec_json, "
        "profiled = excluded.profiled, out_dir = excluded.out_dir, planned = 1");
    if (!upsert) return upsert.status();
    for (const PlannedRun& run : runs) {
      const RunSpec& spec = run.spec;
      upsert->reset();
      upsert->bind(1, spec.run_id)
          .bind(2, spec.repeat)
          .bind(3, spec.nodes)
          .bind(4, spec.tasks_per_node)
          .bind(5, spec.world_size)
          .bind(6, spec.slurm.gpus_per_node)
          .bind(7, spec.global_batch)
          .bind(8, spec.per_gpu_batch)
          .bind(9, nlohmann::json(spec.varied).dump())
          .bind(10, nlohmann::json(workload_params(spec)).dump())
          .bind(11, run_spec_to_json(spec).dump())
          .bind(12, spec.profile == "none" ? 0 : 1)
          .bind(13, run.out_dir);
      if (Status inserted = upsert->run(); !inserted) {
        return inserted.with_context("run " + spec.run_id);
      }
    }
    return Status::ok();
  });
}

Result<std::vector<std::string>> StudyState::claim_runs(int max_attempts, const RetryPolicy& retry,
                                                        const std::string& claim_token,
                                                        bool planned_only,
                                                        const std::set<std::string>* only) {
  std::vector<std::string> claimed;
  Status claim = sqlite::in_transaction(db_, [&]() -> Status {
    auto candidates = db_.query(
        "SELECT run_id, state, attempts, claim_token, claimed_at, failure_class, failure_evidence "
        "FROM runs "
        "WHERE planned = 1 ORDER BY run_id");
    if (!candidates) return candidates.status();
    auto counts = failure_counts(db_);
    if (!counts) return counts.status();
    std::string now = common::utc_now_iso8601();
    for (const auto& row : *candidates) {
      if (only != nullptr && only->count(sqlite::to_string(row[0])) == 0) continue;
      RunRecord run;
      run.state = sqlite::to_string(row[1]);
      run.attempts = int_of(row[2]);
      run.failure_class = sqlite::to_string(row[5]);
      run.failure_evidence = sqlite::to_string(row[6]);
      if (auto found = counts->find(sqlite::to_string(row[0])); found != counts->end()) {
        run.failures = found->second;
      }
      bool wanted = false;
      if (run.state == kStateSubmitting) {
        wanted = claim_is_stale(sqlite::to_string(row[3]), sqlite::to_string(row[4]));
      } else if (run.state == kStatePlanned) {
        wanted = charged_attempts(run.attempts, run.failures) < max_attempts;
      } else if (!planned_only) {
        wanted = wants_retry(run, max_attempts, retry);
      }
      if (!wanted) continue;
      auto update = db_.query(
          "UPDATE runs SET state = 'SUBMITTING', claim_token = ?, claimed_at = ? WHERE run_id = ?",
          {claim_token, now, row[0]});
      if (!update) return update.status();
      claimed.push_back(sqlite::to_string(row[0]));
    }
    return Status::ok();
  });
  if (!claim) return claim;
  return claimed;
}

Status StudyState::record_submission(const sched::Submission& submission,
                                     const std::string& scheduler, const std::string& claim_token) {
  return sqlite::in_transaction(db_, [&]() -> Status {
    std::string now = common::utc_now_iso8601();
    auto updated = db_.query(
        "UPDATE runs SET state = 'SUBMITTED', attempts = attempts + 1, scheduler = ?, job_id = ?, "
        "reason = NULL, submitted_at = ?, started_at = NULL, finished_at = NULL, "
        "claim_token = NULL, claimed_at = NULL, failure_class = NULL, failure_evidence = NULL "
        "WHERE run_id = ? AND state = 'SUBMITTING' AND claim_token = ?",
        {scheduler, submission.job_id, now, submission.run_id, claim_token});
    if (!updated) return updated.status();
    if (db_.changes() != 1) {
      return Status::error("run " + submission.run_id + ": job " + submission.job_id +
                           " submitted, but this process no longer holds the run's claim");
    }
    auto inserted = db_.query(
        "INSERT INTO attempts(run_id, attempt, scheduler, job_id, state, submitted_at) "
        "SELECT run_id, attempts, ?, ?, 'SUBMITTED', ? FROM runs WHERE run_id = ?",
        {scheduler, submission.job_id, now, submission.run_id});
    return inserted.status();
  });
}

Status StudyState::renew_claims(const std::string& claim_token) {
  return db_
      .query("UPDATE runs SET claimed_at = ? WHERE state = 'SUBMITTING' AND claim_token = ?",
             {common::utc_now_iso8601(), claim_token})
      .status();
}

Status StudyState::release_claim(const std::string& run_id, const std::string& claim_token,
                                 const std::string& reason, const std::string& scheduler) {
  return sqlite::in_transaction(db_, [&]() -> Status {
    auto updated = db_.query(
        "UPDATE runs SET state = 'PLANNED', reason = ?, scheduler = COALESCE(?, scheduler), "
        "claim_token = NULL, claimed_at = NULL "
        "WHERE run_id = ? AND state = 'SUBMITTING' AND claim_token = ?",
        {reason.empty() ? Value() : Value(reason), scheduler.empty() ? Value() : Value(scheduler),
         run_id, claim_token});
    return updated.status();
  });
}

Status StudyState::record_job_status(const std::string& run_id, const std::string& job_id,
                                     const common::JobStatus& status) {
  return sqlite::in_transaction(db_, [&]() -> Status {
    auto current = db_.query(
        "SELECT state, job_id, (SELECT COUNT(*) FROM attempts WHERE run_id = runs.run_id AND "
        "job_id = runs.job_id), out_dir, world_size, scheduler, "
        "json_extract(spec_json, '$.slurm.time_limit_minutes') FROM runs WHERE run_id = ?",
        {run_id});
    if (!current) return current.status();
    if (current->empty() || sqlite::to_string((*current)[0][1]) != job_id) return Status::ok();
    const std::string previous_name = sqlite::to_string((*current)[0][0]);
    auto previous = common::parse_job_state(previous_name);
    // A job the scheduler started again under the same id (SLURM requeues a batch job whose
    // node failed): its restart count says so, or a running job seen pending again.
    const int recorded_restarts = int_of((*current)[0][2]) - 1;
    int restarts = status.restarts;
    if (previous == common::JobState::kRunning && status.state == common::JobState::kPending) {
      restarts = std::max(restarts, recorded_restarts + 1);
    }
    const bool requeued = restarts > recorded_restarts;
    bool terminal = common::is_terminal(status.state);
    if (!requeued && previous && common::is_terminal(*previous) && !terminal) return Status::ok();
    // A run seen running did start, whatever a later answer says.
    if (terminal && status.never_started && previous != common::JobState::kRunning) {
      return take_back_attempt(run_id, std::string(kReasonNotReached) + " " + status.reason);
    }
    std::string now = common::utc_now_iso8601();
    for (int restart = recorded_restarts; restart < restarts; ++restart) {
      if (Status closed = close_requeued_attempt(run_id, now); !closed) return closed;
    }
    Value reason = status.reason.empty() ? Value() : Value(status.reason);
    Value finished = terminal ? Value(now) : Value();
    auto updated = db_.query(
        "UPDATE runs SET state = ?, reason = ?, "
        "started_at = CASE WHEN ? AND started_at IS NULL THEN ? ELSE started_at END, "
        "finished_at = CASE WHEN ? THEN COALESCE(finished_at, ?) END WHERE run_id = ?",
        {to_string(status.state), reason, int64_t{status.state != common::JobState::kPending}, now,
         int64_t{terminal}, finished, run_id});
    if (!updated) return updated.status();
    auto attempt = db_.query(
        "UPDATE attempts SET state = ?, reason = ?, finished_at = COALESCE(finished_at, ?) "
        "WHERE run_id = ? AND attempt = (SELECT attempts FROM runs WHERE run_id = ?)",
        {to_string(status.state), reason, finished, run_id, run_id});
    if (!attempt) return attempt.status();
    if (Status placed = record_placement(db_, run_id, job_id, status.placement); !placed) {
      return placed;
    }
    if (!terminal) return Status::ok();
    if (status.state == common::JobState::kCompleted) {
      return record_attempt_failure(db_, run_id, nullptr);
    }
    // The nodes as recorded: this poll's, or an earlier one's when this one said none.
    common::JobStatus evidence = status;
    if (evidence.placement.node_list.empty()) {
      auto nodes = db_.query_value(
          "SELECT node_list FROM placements WHERE run_id = ? AND attempt = "
          "(SELECT attempts FROM runs WHERE run_id = ?)",
          {run_id, run_id});
      if (nodes && *nodes) evidence.placement.node_list = sqlite::to_string(**nodes);
    }
    const std::string out_dir =
        common::results_path(db_.path(), sqlite::to_string((*current)[0][3]));
    const common::Failure failure = classify_attempt(
        evidence, out_dir, job_id, int_of((*current)[0][4]),
        slurm_time_limit(sqlite::to_string((*current)[0][5]), int_of((*current)[0][6])));
    return record_attempt_failure(db_, run_id, &failure);
  });
}

Status StudyState::take_back_attempt(const std::string& run_id, const std::string& reason) {
  const std::string current = "(SELECT attempts FROM runs WHERE run_id = ?)";
  auto placement = db_.query("DELETE FROM placements WHERE run_id = ? AND attempt = " + current,
                             {run_id, run_id});
  if (!placement) return placement.status();
  auto attempt =
      db_.query("DELETE FROM attempts WHERE run_id = ? AND attempt = " + current, {run_id, run_id});
  if (!attempt) return attempt.status();
  auto planned = db_.query(
      "UPDATE runs SET state = 'PLANNED', reason = ?, attempts = MAX(attempts - 1, 0), "
      "job_id = NULL, submitted_at = NULL, started_at = NULL, finished_at = NULL "
      "WHERE run_id = ?",
      {reason, run_id});
  return planned.status();
}

Status StudyState::close_requeued_attempt(const std::string& run_id, const std::string& now) {
  auto closed = db_.query(
      "UPDATE attempts SET state = 'REQUEUED', finished_at = ?, "
      "reason = 'requeued by the scheduler (e.g. its node failed); started again under the "
      "same job id', failure_class = 'node', failure_evidence = 'REQUEUED: the scheduler "
      "started the job again under the same id' "
      "WHERE run_id = ? AND attempt = (SELECT attempts FROM runs WHERE run_id = ?)",
      {now, run_id, run_id});
  if (!closed) return closed.status();
  auto opened = db_.query(
      "INSERT INTO attempts(run_id, attempt, scheduler, job_id, state, submitted_at) "
      "SELECT run_id, attempts + 1, scheduler, job_id, 'PENDING', ? FROM runs WHERE run_id = ?",
      {now, run_id});
  if (!opened) return opened.status();
  auto counted = db_.query(
      "UPDATE runs SET attempts = attempts + 1, finished_at = NULL WHERE run_id = ?", {run_id});
  return counted.status();
}

Result<std::vector<RunRecord>> StudyState::runs() {
  auto rows = db_.query(
      "SELECT run_id, repeat, nodes, tasks_per_node, world_size, gpus_per_node, varied_json, "
      "state, attempts, scheduler, job_id, reason, submitted_at, started_at, finished_at, "
      "out_dir, json_extract(spec_json, '$.system.scheduler_settings'), failure_class, "
      "failure_evidence FROM runs WHERE planned = 1 ORDER BY run_id");
  if (!rows) return rows.status();
  auto counts = failure_counts(db_);
  if (!counts) return counts.status();
  std::vector<RunRecord> records;
  for (const auto& row : *rows) {
    RunRecord record;
    record.run_id = sqlite::to_string(row[0]);
    record.repeat = int_of(row[1]);
    record.nodes = int_of(row[2]);
    record.tasks_per_node = int_of(row[3]);
    record.world_size = int_of(row[4]);
    record.gpus_per_node = int_of(row[5]);
    record.varied_json = sqlite::to_string(row[6]);
    record.state = sqlite::to_string(row[7]);
    record.attempts = int_of(row[8]);
    record.scheduler = sqlite::to_string(row[9]);
    record.job_id = sqlite::to_string(row[10]);
    record.reason = sqlite::to_string(row[11]);
    record.submitted_at = sqlite::to_string(row[12]);
    record.started_at = sqlite::to_string(row[13]);
    record.finished_at = sqlite::to_string(row[14]);
    record.out_dir = common::results_path(db_.path(), sqlite::to_string(row[15]));
    auto settings = nlohmann::json::parse(sqlite::to_string(row[16]), nullptr, false);
    if (settings.is_object()) {
      for (const auto& [key, value] : settings.items()) {
        if (value.is_string()) record.scheduler_settings[key] = value.get<std::string>();
      }
    }
    record.failure_class = sqlite::to_string(row[17]);
    record.failure_evidence = sqlite::to_string(row[18]);
    if (auto found = counts->find(record.run_id); found != counts->end()) {
      record.failures = found->second;
    }
    records.push_back(std::move(record));
  }
  return records;
}

Result<std::vector<AttemptRecord>> StudyState::attempts(const std::string& run_id) {
  auto rows = db_.query(
      "SELECT a.run_id, a.attempt, a.scheduler, a.job_id, a.state, a.reason, a.submitted_at, "
      "a.finished_at, a.failure_class, a.failure_evidence, p.node_list FROM attempts a "
      "LEFT JOIN placements p ON p.run_id = a.run_id AND p.attempt = a.attempt "
      "WHERE a.run_id = ? ORDER BY a.attempt",
      {run_id});
  if (!rows) return rows.status();
  std::vector<AttemptRecord> records;
  for (const auto& row : *rows) {
    records.push_back({sqlite::to_string(row[0]), int_of(row[1]), sqlite::to_string(row[2]),
                       sqlite::to_string(row[3]), sqlite::to_string(row[4]),
                       sqlite::to_string(row[5]), sqlite::to_string(row[6]),
                       sqlite::to_string(row[7]), sqlite::to_string(row[8]),
                       sqlite::to_string(row[9]), sqlite::to_string(row[10])});
  }
  return records;
}

Result<std::vector<std::string>> StudyState::nodes_to_exclude(const std::string& run_id,
                                                              bool flagged_too) {
  return campaign::nodes_to_exclude(db_, run_id, flagged_too);
}

}  // namespace scalestudy::campaign
