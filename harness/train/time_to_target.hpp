// TimeToTargetClock: the training loop's time to its validation target (TrainingTarget,
// --target-val-accuracy or --target-val-loss). The clock sums the training and validation
// seconds of every finished epoch over every attempt of the run (a checkpoint carries it,
// LoopProgress); the first epoch whose global validation reaches the target goes into the
// summary (time_to_target_s, time_to_target_epoch; docs/run-database.md) and, on rank 0,
// into one line on stdout. Every rank sees the same global figures, so every rank records
// the same epoch. Used by the training thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "harness/train/training_checkpoint.hpp"
#include "harness/train/training_target.hpp"

namespace scalestudy::train {

class TimeToTargetClock {
 public:
  // `summary`, the run's summary numbers, must outlive the clock.
  TimeToTargetClock(std::optional<TrainingTarget> target, std::map<std::string, double>& summary,
                    bool is_rank0)
      : target_(std::move(target)), summary_(summary), is_rank0_(is_rank0) {}

  // A finished epoch's training and validation seconds, its earlier attempts' included.
  void add_epoch_s(double epoch_s) { elapsed_s_ += epoch_s; }
  // `epoch`'s global validation: recorded when it is the first to reach the target.
  void note_validation(int64_t epoch, double val_loss, std::optional<double> val_acc);

  // The clock and a target reached before a checkpoint, into its LoopProgress and back: a
  // resumed run's time to target sums every attempt's epochs.
  void save(LoopProgress& progress) const;
  void restore(const LoopProgress& progress);

 private:
  void record_target(int64_t epoch, double seconds);

  std::optional<TrainingTarget> target_;
  std::map<std::string, double>& summary_;
  bool is_rank0_;
  double elapsed_s_ = 0;      // of the finished epochs, over every attempt
  int64_t target_epoch_ = 0;  // the epoch that reached the target; 0: not (yet)
  double target_s_ = 0;       // elapsed_s_ when it did
};

}  // namespace scalestudy::train
