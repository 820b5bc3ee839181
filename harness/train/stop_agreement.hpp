// StopAgreement: how the ranks of a run agree to stop at the same step boundary when a
// signal reached some of them, without a blocking collective inside the measured window.
// Every `check_every` global steps each rank reads the vote it launched at the previous
// check and launches the next one: an asynchronous sum all-reduce of its own wish (0 or 1).
// A stop asked for before check k is therefore agreed at check k + check_every — one
// interval late, but at the same step on every rank, which is all a checkpoint needs.
// On gloo the vote is a CPU tensor and its wait() (which blocks the host until the sum is
// in) comes a check later, when the sum is long done. On a device communicator (NCCL) the
// vote lives on the run's device; its wait() only orders the current stream after the
// all-reduce, so it comes at once, followed by a non-blocking copy to pinned memory that
// the next check reads (ScalarReadback).
// A vote still in flight must be settled (settle()) before the run ends.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/train/scalar_readback.hpp"

namespace scalestudy::train {

class StopAgreement {
 public:
  StopAgreement(dist::Communicator& communicator, const torch::Device& device, int64_t check_every);

  // At the boundary before step `global_step` (every rank calls it at every boundary):
  // on a check step, whether the previous check's vote found a rank that asked to stop;
  // unless so, launches this check's vote with this rank's `requested`. False elsewhere.
  Result<bool> at_boundary(int64_t global_step, bool requested);
  // Waits for a vote still in flight; its result no longer matters.
  Status settle();

 private:
  // The launched vote's wait() and its copy towards the host.
  Status collect_vote();

  dist::Communicator& communicator_;
  int64_t check_every_;
  torch::Tensor vote_;  // one float32: this rank's wish, then the sum of all
  std::unique_ptr<dist::CollectiveWork> work_;  // the vote's all-reduce, until collected
  ScalarReadback result_;
  bool voted_ = false;  // a vote was launched and its result not read yet
};

}  // namespace scalestudy::train
