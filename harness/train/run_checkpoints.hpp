// RunCheckpoints: a training run's checkpoints at step boundaries, and its resume from one
// (docs/checkpoint-resume.md). Between two steps: the test faults due there, a periodic
// checkpoint when --checkpoint-every says so, and the stop TrainingStop agreed on, after a
// last checkpoint (RunContext::checkpointed is set then). At the start: the run
// directory's committed checkpoint, checked against this run's configuration and world
// size, restores every piece of state, so the run continues exactly as an uninterrupted one
// would; the first epoch then takes over the checkpoint's partial totals. A shard's
// contents are training_checkpoint's, the files' layout CheckpointStore's.
// Used by the training thread only.
#pragma once

#include <cstdint>
#include <optional>

#include "harness/core/status.hpp"
#include "harness/metrics/throughput_meter.hpp"
#include "harness/train/checkpoint_store.hpp"
#include "harness/train/global_metrics.hpp"
#include "harness/train/run_recorder.hpp"
#include "harness/train/time_to_target.hpp"
#include "harness/train/training_checkpoint.hpp"
#include "harness/train/training_config.hpp"
#include "harness/train/training_stop.hpp"
#include "harness/train/workload.hpp"

namespace scalestudy::train {

// Where the loop stands between two steps.
struct StepBoundary {
  int64_t global_step = 0;  // the next step
  int64_t steps_per_epoch = 0;
  int64_t epoch = 1;       // 1-based
  int64_t epoch_step = 0;  // steps of `epoch` done
  const PassTotals* epoch_totals = nullptr;
  double epoch_elapsed_s = 0;  // of `epoch`, over every attempt
};

// Where a resumed attempt continues: the next global step, and the run's steps per epoch.
struct ResumePoint {
  int64_t global_step = 0;
  int64_t steps_per_epoch = 0;
};

class RunCheckpoints {
 public:
  // Every reference must outlive the checkpoints.
  RunCheckpoints(RunContext& context, const TrainingConfig& config, metrics::ThroughputMeter& meter,
                 RunRecorder& recorder, TimeToTargetClock& time_to_target, TrainingStop& stop);

  // Between two steps: a periodic checkpoint when one is due, and the stop a signal asked
  // for once every rank knows of it (then RunContext::checkpointed is set).
  Status at_step_boundary(const StepBoundary& boundary, const ShardContents& contents);

  // A committed checkpoint in the run directory, restored into `contents` and the rooms
  // around the loop; nullopt (and nothing restored) without one.
  Result<std::optional<ResumePoint>> resume(const ShardContents& contents);
  // The epoch the loop starts with: the checkpoint's, else 1.
  int64_t first_epoch() const { return resumed_ ? resumed_->epoch : 1; }
  // Steps of the next epoch that earlier attempts ran: the checkpoint's, until
  // continue_resumed_epoch() took them over; else 0.
  int64_t resumed_epoch_steps() const { return resumed_ ? resumed_->epoch_step : 0; }
  // The epoch a run resumes in takes over the checkpoint's partial `totals` and the
  // throughput meter's, from `global_step` on; returns the seconds earlier attempts ran it
  // (0 for any other epoch).
  double continue_resumed_epoch(PassTotals& totals, int64_t global_step);

  const TrainingAttempt& attempt() const { return attempt_; }
  // Rank 0, once the run completed: every rank has read its shard by now (at its start);
  // the run needs the checkpoint no longer.
  Status remove_after_run() const;

 private:
  // Every rank writes its shard; once all have, rank 0 commits the manifest.
  Status write_checkpoint(const StepBoundary& boundary, const ShardContents& contents);
  Status save_shard(const StepBoundary& boundary, const ShardContents& contents);
  // `local` on this rank; an error on every rank when any rank's was one.
  Status all_ranks_succeeded(const Status& local);
  bool is_last_rank() const;

  RunContext& context_;
  int64_t checkpoint_every_;  // --checkpoint-every; 0: none
  TestFaults test_faults_;
  metrics::ThroughputMeter& meter_;
  RunRecorder& recorder_;
  TimeToTargetClock& time_to_target_;
  TrainingStop& stop_;
  CheckpointStore store_;                // in the run directory
  std::optional<LoopProgress> resumed_;  // until the resumed epoch has taken it over
  TrainingAttempt attempt_;
};

}  // namespace scalestudy::train
