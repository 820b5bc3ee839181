// TrainingStop: whether a training run stops at the boundary before a global step, and
// why: the hidden --checkpoint-stop-at-step, or a SIGTERM / SIGINT with
// --checkpoint-on-signal. A signal reaches the ranks at different moments, so they agree on
// it every --stop-check-every steps, all at the same step, one interval after it was asked
// for (StopAgreement); a single rank asks itself every step. The step an attempt resumed
// at never stops it again. The run writes a last checkpoint there (RunCheckpoints).
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/train/stop_agreement.hpp"
#include "harness/train/termination_watcher.hpp"
#include "harness/train/training_config.hpp"

namespace scalestudy::train {

class TrainingStop {
 public:
  // `communicator` and `termination` must outlive the stop.
  TrainingStop(const TrainingConfig& config, dist::Communicator& communicator,
               const torch::Device& device, TerminationWatcher& termination, int world_size);

  // With --checkpoint-on-signal: a signal asks for a stop at a step boundary instead of
  // failing the run at once.
  void catch_signals();
  // Whether the run stops before `global_step`; every rank asks at every boundary.
  // `resume_step`: the step this attempt started at (-1: step 0).
  Result<bool> agreed(int64_t global_step, int64_t resume_step);
  // Waits for an agreement still in flight (before the run ends or stops).
  Status settle();
  // What stopped the run at `global_step`, for the run record's reason.
  std::string cause(int64_t global_step) const;

 private:
  int64_t stop_at_step_;  // --checkpoint-stop-at-step; 0: never
  bool on_signal_;        // --checkpoint-on-signal
  TerminationWatcher& termination_;
  int world_size_;
  StopAgreement agreement_;
};

}  // namespace scalestudy::train
