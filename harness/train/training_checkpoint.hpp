// One rank's shard of a training checkpoint (CheckpointStore names the files): a LibTorch
// archive of where the loop stands, the epoch's partial totals and the throughput meter's
// (LoopProgress), the module's parameters and buffers by name, the optimizer's, the loss
// scaler's and the task's own state (each serialises itself) and the default random
// generators. The module is restored in place, so tensors that others hold (the optimizer,
// the gradient bucketer, a captured CUDA graph) keep their storage. Functions; used by the
// training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "harness/core/status.hpp"
#include "harness/metrics/throughput_meter.hpp"
#include "harness/train/mixed_precision.hpp"
#include "harness/train/training_optimizer.hpp"
#include "harness/train/training_task.hpp"

namespace scalestudy::train {

struct LoopProgress {
  int64_t global_step = 0;  // the next step to run
  int64_t epoch = 1;        // its 1-based epoch
  int64_t epoch_step = 0;   // steps of `epoch` already done
  int64_t steps_per_epoch = 0;
  int attempt = 1;  // the attempt that wrote the checkpoint (1: the run's first)
  // The epoch's training totals so far (float64 scalars) and the seconds it has run.
  torch::Tensor epoch_loss_sum, epoch_correct;
  int64_t epoch_samples = 0;
  bool epoch_has_accuracy = false;
  double epoch_elapsed_s = 0;
  metrics::ThroughputMeter::State meter;
  // Time to target across attempts: the training and validation seconds of the epochs
  // before `epoch`, and the target's epoch and seconds once reached (0: not yet).
  double run_elapsed_s = 0;
  int64_t target_epoch = 0;
  double target_s = 0;
};

// What a shard holds besides the loop's progress; all of it is restored in place.
struct ShardContents {
  torch::nn::Module& module;
  TrainingOptimizer& optimizer;
  MixedPrecision& precision;
  TrainingTask& task;
  torch::Device device;  // the run's: its generator too, on a GPU
};

// Writes one rank's shard to `path` (a LibTorch archive); an error names the path.
Status write_shard(const std::string& path, const LoopProgress& progress,
                   const ShardContents& contents);
// Restores `contents` from the shard at `path` and returns its progress; an error when the
// shard is unreadable, misses a piece, or holds another step than `expected_step`.
Result<LoopProgress> read_shard(const std::string& path, int64_t expected_step,
                                const ShardContents& contents);

}  // namespace scalestudy::train
