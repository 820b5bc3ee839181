// Checkpoints at step boundaries and the resume from one (run_checkpoints.hpp).
#include "harness/train/run_checkpoints.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/train/steady_seconds.hpp"

namespace scalestudy::train {

RunCheckpoints::RunCheckpoints(RunContext& context, const TrainingConfig& config,
                               metrics::ThroughputMeter& meter, RunRecorder& recorder,
                               TimeToTargetClock& time_to_target, TrainingStop& stop)
    : context_(context),
      checkpoint_every_(config.checkpoint_every),
      test_faults_(config.test_faults),
      meter_(meter),
      recorder_(recorder),
      time_to_target_(time_to_target),
      stop_(stop),
      store_(std::filesystem::path(context.writer.path()).parent_path().string()) {}

Status RunCheckpoints::at_step_boundary(const StepBoundary& boundary,
                                        const ShardContents& contents) {
  const int64_t global_step = boundary.global_step;
  if (Status signalled = test_faults_.signal_if_due(global_step, attempt_.number, is_last_rank(),
                                                    context_.termination);
      !signalled) {
    return signalled;
  }
  auto stop = stop_.agreed(global_step, attempt_.resume_step);
  if (!stop) return stop.status();
  const bool resumed_here = global_step == attempt_.resume_step;
  const bool periodic = checkpoint_every_ > 0 && global_step > 0 && !resumed_here &&
                        global_step % checkpoint_every_ == 0;
  if (*stop || periodic) {
    if (Status written = write_checkpoint(boundary, contents); !written) {
      return written.with_context("checkpoint at step " + std::to_string(global_step));
    }
  }
  test_faults_.kill_if_due(global_step, attempt_.number);
  if (*stop) {
    if (Status settled = stop_.settle(); !settled) return settled;
    const std::string cause = stop_.cause(global_step);
    context_.checkpointed =
        "checkpointed at global step " + std::to_string(global_step) + " after " + cause +
        "; the next attempt in this --out-dir resumes from " + store_.directory();
  }
  return Status::ok();
}

// Two scalar all-reduces keep the ranks together, so a rank that failed to write fails
// them all and no manifest names an incomplete checkpoint.
Status RunCheckpoints::write_checkpoint(const StepBoundary& boundary,
                                        const ShardContents& contents) {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  if (Status written = recorder_.flush_rows(); !written) return written;
  meter_.close_window(started);  // the write is no training time; the next step reopens it
  if (Status flushed = context_.writer.flush(); !flushed) return flushed;
  Status saved = save_shard(boundary, contents);
  if (Status agreed = all_ranks_succeeded(saved); !agreed) return agreed;
  Status committed = Status::ok();
  if (context_.is_rank0()) {
    CheckpointManifest manifest;
    manifest.global_step = boundary.global_step;
    manifest.world_size = context_.rank_info.world_size;
    manifest.attempt = attempt_.number;
    manifest.config = resumable_config(context_.flags.resolved());
    committed = store_.commit(manifest);
  }
  if (Status agreed = all_ranks_succeeded(committed); !agreed) return agreed;
  attempt_.checkpoint_write_s += seconds_since(started);
  ++attempt_.checkpoints_written;
  return Status::ok();
}

Status RunCheckpoints::save_shard(const StepBoundary& boundary, const ShardContents& contents) {
  auto path = store_.prepare_shard(boundary.global_step, context_.rank_info.rank);
  if (!path) return path.status();
  LoopProgress progress;
  progress.global_step = boundary.global_step;
  progress.epoch = boundary.epoch;
  progress.epoch_step = boundary.epoch_step;
  progress.steps_per_epoch = boundary.steps_per_epoch;
  progress.attempt = attempt_.number;
  progress.epoch_loss_sum = boundary.epoch_totals->loss_sum;
  progress.epoch_correct = boundary.epoch_totals->correct;
  progress.epoch_samples = boundary.epoch_totals->samples;
  progress.epoch_has_accuracy = boundary.epoch_totals->has_accuracy;
  progress.epoch_elapsed_s = boundary.epoch_elapsed_s;
  progress.meter = meter_.state();
  time_to_target_.save(progress);
  if (Status written = write_shard(*path, progress, contents); !written) return written;
  return store_.publish_shard(boundary.global_step, context_.rank_info.rank);
}

Status RunCheckpoints::all_ranks_succeeded(const Status& local) {
  std::vector<double> ok = {local ? 1.0 : 0.0};
  if (Status reduced = context_.communicator.allreduce_scalars(ok, dist::ScalarReduction::kMin);
      !reduced) {
    return reduced;
  }
  if (!local) return local;
  if (ok[0] < 1) return Status::error("another rank failed to write its part");
  return Status::ok();
}

bool RunCheckpoints::is_last_rank() const {
  return context_.rank_info.rank == context_.rank_info.world_size - 1;
}

Result<std::optional<ResumePoint>> RunCheckpoints::resume(const ShardContents& contents) {
  auto manifest = store_.read_manifest();
  if (!manifest) return manifest.status();
  if (!*manifest) return std::optional<ResumePoint>();
  if (Status compatible = check_resumable(**manifest, store_.directory(),
                                          resumable_config(context_.flags.resolved()),
                                          context_.rank_info.world_size);
      !compatible) {
    return compatible;
  }
  const int64_t step = (*manifest)->global_step;
  const std::string path = store_.shard_path(step, context_.rank_info.rank);
  auto read = read_shard(path, step, contents);
  if (!read) return read.status();
  LoopProgress& progress = *read;
  attempt_.resume_step = step;
  attempt_.number = (*manifest)->attempt + 1;
  if (Status discarded = context_.writer.discard_from(step, static_cast<int>(progress.epoch));
      !discarded) {
    return discarded;
  }
  if (context_.is_rank0()) {
    std::printf("Resumed at global step %lld (epoch %lld) from %s, attempt %d\n",
                static_cast<long long>(step), static_cast<long long>(progress.epoch),
                store_.directory().c_str(), attempt_.number);
    std::fflush(stdout);
  }
  // Time to target sums every attempt's epochs; a target reached before the stop stays.
  time_to_target_.restore(progress);
  const ResumePoint point{step, progress.steps_per_epoch};
  resumed_ = std::move(progress);
  attempt_.meter_start = resumed_->meter.run_measured;
  return std::optional<ResumePoint>(point);
}

double RunCheckpoints::continue_resumed_epoch(PassTotals& totals, int64_t global_step) {
  if (!resumed_) return 0;
  totals.loss_sum = resumed_->epoch_loss_sum;
  totals.correct = resumed_->epoch_correct;
  totals.samples = resumed_->epoch_samples;
  totals.has_accuracy = resumed_->epoch_has_accuracy;
  const double earlier_attempts_s = resumed_->epoch_elapsed_s;
  meter_.resume(std::move(resumed_->meter), global_step);
  resumed_.reset();
  return earlier_attempts_s;
}

Status RunCheckpoints::remove_after_run() const {
  if (context_.is_rank0()) return store_.remove();
  return Status::ok();
}

}  // namespace scalestudy::train
