// RunWriter: this rank's run database, <out-dir>/rank<R>.sqlite, in the schema of
// docs/run-database.md (version 1, PRAGMA user_version; WAL, synchronous=NORMAL). The run
// row is written at creation with status 'running', so a rank that dies leaves a record
// saying so; mark_completed() / mark_failed() end it. Steps are buffered and written in
// batches (one transaction per batch, not per step).
//
// Thread-safe: every method takes an internal lock, so the termination watcher can mark
// the run failed from its own thread while the training thread writes. After close() (or
// a mark_* with close) further calls return an error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "harness/metrics/energy_log.hpp"
#include "harness/metrics/phase.hpp"
#include "harness/metrics/telemetry_sampler.hpp"

namespace scalestudy::record {

struct RunIdentity {
  std::string run_id;
  std::string workload;
  int rank = 0;
  int local_rank = 0;
  int world_size = 1;
  std::string host;
  std::string device = "cpu";
  std::string backend = "none";
  std::map<std::string, std::string> config;  // every resolved flag
};

struct StepRow {
  int64_t global_step = 0;
  int epoch = 1;
  bool warmup = false;
  int64_t samples = 0;
  metrics::PhaseTimes times;
  std::optional<double> loss;
};

struct EpochRow {
  int epoch = 1;
  double lr = 0;
  double train_loss = 0;
  std::optional<double> train_acc, val_loss, val_acc;
  double samples_per_s = 0;
  double epoch_s = 0;
};

struct CollectiveRow {
  std::string op = "allreduce";
  int64_t bytes = 0;
  std::string dtype = "float32";
  int64_t iterations = 0;
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};

// When a measured step reached the gradient all-reduce (table `arrivals`).
struct ArrivalRow {
  int64_t global_step = 0;
  double arrival_unix_s = 0;  // the host's realtime clock
};

class RunWriter {
 public:
  static constexpr size_t kStepBatch = 128;

  // Whether create() starts a new record or continues an earlier attempt's.
  enum class Attempt { kFresh, kContinue };

  // Creates <out_dir> if needed and a fresh rank<R>.sqlite (replacing an earlier attempt's
  // file of the same rank), with the schema and the run row. With kContinue (a run resumed
  // from a checkpoint) an earlier attempt's file of the same schema version is kept instead:
  // its rows stay (see discard_from) and its run row becomes this attempt's — 'running',
  // no reason, no finish time, this attempt's host, device and configuration; started_at
  // stays the first attempt's. Without such a file kContinue creates a fresh one.
  static Result<std::unique_ptr<RunWriter>> create(const std::string& out_dir,
                                                   const RunIdentity& identity,
                                                   Attempt attempt = Attempt::kFresh);

  Status add_provenance(const std::map<std::string, std::string>& entries);
  // Buffered; written every kStepBatch steps, by flush(), and before any other write.
  Status add_step(const StepRow& step);
  Status flush();
  Status add_epoch(const EpochRow& epoch);
  Status set_summary(const std::map<std::string, double>& values);
  Status add_telemetry(const std::vector<metrics::TelemetrySample>& samples);
  Status add_collectives(const std::vector<CollectiveRow>& rows);
  Status add_arrivals(const std::vector<ArrivalRow>& rows);
  // Replaces an epoch's row written by an earlier attempt.
  Status add_energy(const std::vector<metrics::EnergyRow>& rows);

  // A resumed run: removes the steps and arrivals from `global_step` on and the epochs (and
  // their energy) from `epoch` on, which the attempt that wrote them recorded after its checkpoint
  // and this one redoes.
  Status discard_from(int64_t global_step, int epoch);

  Status mark_completed();
  // Flushes buffered steps (best effort) and records the reason. Safe to call after a
  // failed write; a later mark_* overrides an earlier one.
  Status mark_failed(const std::string& reason);
  // Closes the database (checkpointing the WAL into the main file).
  void close();

  const std::string& path() const { return path_; }

 private:
  RunWriter(sqlite::Database db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  Status flush_locked();
  Status finish_locked(const std::string& status, const std::optional<std::string>& reason);
  Status check_open_locked() const;

  std::mutex mutex_;
  std::optional<sqlite::Database> db_;
  std::string path_;
  std::vector<StepRow> pending_steps_;
};

// "2024-05-01T12:00:00.123Z".
std::string utc_timestamp_now();
// {"key": "value", ...} with JSON string escaping, keys in map order.
std::string to_json_object(const std::map<std::string, std::string>& entries);

}  // namespace scalestudy::record
