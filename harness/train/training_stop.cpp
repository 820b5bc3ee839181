// The agreed stop at a step boundary and its cause (training_stop.hpp).
#include "harness/train/training_stop.hpp"

namespace scalestudy::train {

TrainingStop::TrainingStop(const TrainingConfig& config, dist::Communicator& communicator,
                           const torch::Device& device, TerminationWatcher& termination,
                           int world_size)
    : stop_at_step_(config.checkpoint_stop_at_step),
      on_signal_(config.checkpoint_on_signal),
      termination_(termination),
      world_size_(world_size),
      agreement_(communicator, device, config.stop_check_every) {}

void TrainingStop::catch_signals() {
  if (on_signal_) termination_.stop_at_step_boundary();
}

Result<bool> TrainingStop::agreed(int64_t global_step, int64_t resume_step) {
  if (stop_at_step_ > 0 && global_step == stop_at_step_ && global_step != resume_step) {
    return true;
  }
  if (!on_signal_) return false;
  const bool requested = termination_.stop_requested();
  if (world_size_ == 1) return requested;
  return agreement_.at_boundary(global_step, requested);
}

Status TrainingStop::settle() {
  return agreement_.settle();
}

std::string TrainingStop::cause(int64_t global_step) const {
  const std::string signal = termination_.requested_by();
  return !signal.empty()                ? signal
         : global_step == stop_at_step_ ? "--checkpoint-stop-at-step"
                                        : "a signal to another rank";
}

}  // namespace scalestudy::train
