// The clock of time to target and the epoch that reached it (time_to_target.hpp).
#include "harness/train/time_to_target.hpp"

#include <cstdio>

namespace scalestudy::train {

void TimeToTargetClock::note_validation(int64_t epoch, double val_loss,
                                        std::optional<double> val_acc) {
  if (!target_ || target_epoch_ > 0) return;
  if (!target_->reached(val_loss, val_acc)) return;
  record_target(epoch, elapsed_s_);
  if (is_rank0_) {
    std::printf("Target %s reached in epoch %lld after %.1f s\n", target_->describe().c_str(),
                static_cast<long long>(epoch), elapsed_s_);
    std::fflush(stdout);
  }
}

void TimeToTargetClock::save(LoopProgress& progress) const {
  progress.run_elapsed_s = elapsed_s_;
  progress.target_epoch = target_epoch_;
  progress.target_s = target_s_;
}

void TimeToTargetClock::restore(const LoopProgress& progress) {
  elapsed_s_ = progress.run_elapsed_s;
  if (progress.target_epoch > 0) record_target(progress.target_epoch, progress.target_s);
}

void TimeToTargetClock::record_target(int64_t epoch, double seconds) {
  target_epoch_ = epoch;
  target_s_ = seconds;
  summary_["time_to_target_s"] = seconds;
  summary_["time_to_target_epoch"] = static_cast<double>(epoch);
}

}  // namespace scalestudy::train
