// The training loop's figures over all ranks: PassTotals, one rank's sums over a pass of
// its shard (an epoch's training steps, a validation pass), reduced by reduce_pass() to the
// global loss and accuracy; global_rate(), the global samples per second. Each reduction is
// a scalar all-reduce every rank calls at the same point. Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/train/training_task.hpp"

namespace scalestudy::train {

// Sums of one pass over a shard, reduced to global values across ranks. They stay on the
// run's device, so adding a batch never waits for it; reduce_pass reads them once.
struct PassTotals {
  explicit PassTotals(const torch::Device& device)
      : loss_sum(torch::zeros({}, torch::dtype(torch::kFloat64).device(device))),
        correct(torch::zeros_like(loss_sum)) {}

  torch::Tensor loss_sum;
  torch::Tensor correct;
  int64_t samples = 0;
  bool has_accuracy = false;

  // In place: no tensor is allocated per batch.
  void add(const TaskOutput& output, int64_t samples_in_batch);
};

struct GlobalMetrics {
  double loss = 0;
  std::optional<double> accuracy;
};

Result<GlobalMetrics> reduce_pass(const PassTotals& totals, dist::Communicator& communicator);

// Global samples per second: all ranks' samples over the slowest rank's `time_ms`.
Result<double> global_rate(int64_t local_samples, double time_ms, dist::Communicator& communicator);

}  // namespace scalestudy::train
