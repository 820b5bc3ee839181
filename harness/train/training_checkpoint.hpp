// The parts of a training checkpoint that are not the optimizer's, the loss scaler's or the
// task's own (those serialise themselves): where the loop stands, the epoch's partial
// totals, the throughput meter's totals, the module's tensors and the default random
// generators. One rank's shard is one torch archive (CheckpointStore names the files).
// The module and generators are restored in place, so tensors that others hold (the
// optimizer, the gradient bucketer, a captured CUDA graph) keep their storage.
// Functions; used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "harness/core/status.hpp"
#include "harness/metrics/throughput_meter.hpp"

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
};

void save_progress(torch::serialize::OutputArchive& archive, const LoopProgress& progress);
LoopProgress load_progress(torch::serialize::InputArchive& archive);

// Parameters and buffers by dotted name.
void save_module_tensors(torch::serialize::OutputArchive& archive, const torch::nn::Module& module);
// Copies into the module's tensors; an error names a tensor missing or of another shape.
Status load_module_tensors(torch::serialize::InputArchive& archive, torch::nn::Module& module);

// The default generators of the CPU and, for a CUDA run, of its device.
void save_generators(torch::serialize::OutputArchive& archive, const torch::Device& device);
void load_generators(torch::serialize::InputArchive& archive, const torch::Device& device);

}  // namespace scalestudy::train
