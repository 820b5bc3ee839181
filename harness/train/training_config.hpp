// TrainingConfig: the training loop's flags (epochs, batch, optimizer, schedule, DDP
// bucketing, instrumentation, precision and the GPU path's switches), declared once and
// resolved into typed values. Resolving checks ranges and combinations and names the
// offending flag; checks that depend on the device happen when the run knows it.
// Plain value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/core/status.hpp"
#include "harness/gpu/precision.hpp"
#include "harness/optim/lr_schedule.hpp"
#include "harness/optim/optimizer_factory.hpp"
#include "harness/profiling/profiler_window.hpp"
#include "harness/train/epoch_batches.hpp"
#include "harness/train/flags.hpp"
#include "harness/train/test_faults.hpp"
#include "harness/train/training_optimizer.hpp"
#include "harness/train/training_target.hpp"

namespace scalestudy::train {

struct TrainingConfig {
  int64_t epochs = 1;
  int64_t steps_per_epoch_cap = 0;  // 0: the whole shard
  int64_t batch_size = 0;           // per rank
  int64_t eval_batch_size = 0;      // per rank
  gpu::Precision precision = gpu::Precision::kFp32;
  bool channels_last = false;    // model weights and batches in NHWC
  bool cudnn_benchmark = false;  // cuDNN autotuning per convolution shape
  bool deterministic = false;    // deterministic kernels only (gpu::enable_deterministic_kernels)
  DataPlacement data_on_device = DataPlacement::kAuto;
  bool cuda_graph = false;  // capture the step once, replay it
  OptimizerImpl optimizer_impl = OptimizerImpl::kAuto;
  uint64_t seed = 0;
  optim::OptimizerConfig optimizer;
  optim::LrSchedule schedule;
  double bucket_cap_mb = 25;
  bool overlap = true;
  // --optimizer-sharding zero1: ZeRO stage 1 (dist::ParameterShards) where gradients are
  // reduced across ranks; "none": every rank keeps the whole optimizer state.
  bool zero1 = false;
  bool instrument = true;
  bool calibrate = true;                // measure the GEMM and all-reduce ceilings before training
  profiling::StepWindow profile_steps;  // empty: no cudaProfilerStart/Stop calls
  int64_t measure_warmup_steps = 5;
  int64_t log_interval = 10;
  std::optional<TrainingTarget> target;  // --target-val-accuracy / --target-val-loss
  int64_t checkpoint_every = 0;          // steps between periodic checkpoints; 0: none
  bool checkpoint_on_signal = true;      // SIGTERM / SIGINT: checkpoint and exit 75, not fail
  int64_t stop_check_every = 10;         // steps between the ranks' agreement on a stop request
  // Hidden test flag: stop at this global step as if a signal had come (0: never).
  int64_t checkpoint_stop_at_step = 0;
  TestFaults test_faults;        // hidden test flags --test-*
  std::string dump_params_path;  // hidden test flag: rank 0 saves the final parameters
  // Hidden benchmark flag: rank 0 saves the parameters and buffers training starts from.
  std::string dump_initial_state_path;
};

void declare_training_flags(Flags& flags);
Result<TrainingConfig> resolve_training_config(const Flags& flags);

}  // namespace scalestudy::train
