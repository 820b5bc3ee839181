// TrainingLoop: one run of the data-parallel training loop around a TrainingTask (what
// TrainingWorkload::run does). Its two files: training_loop_setup.cpp prepares the run
// (the task's model on the device and broadcast, the gradient bucketer, the optimizer, the
// resident training split, the CUDA graph's capture, the calibration, the provenance);
// training_loop.cpp runs the epochs, each step from top to bottom (data wait, forward,
// backward with the bucketed all-reduces, exposed communication wait, optimizer step, each
// a timed phase and an NVTX range), the graph's replay and validation. Around the loop, in
// rooms of their own: the run database's rows, windows and attempts (RunRecorder), the
// checkpoints at step boundaries and the resume (RunCheckpoints), the agreed stop
// (TrainingStop) and time to target (TimeToTargetClock).
// Used by the driver's thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/dist/gradient_bucketer.hpp"
#include "harness/dist/parameter_shards.hpp"
#include "harness/gpu/device_loader.hpp"
#include "harness/gpu/device_runtime.hpp"
#include "harness/metrics/cpu_usage.hpp"
#include "harness/metrics/phase_timer.hpp"
#include "harness/metrics/throughput_meter.hpp"
#include "harness/profiling/profiler_window.hpp"
#include "harness/train/epoch_batches.hpp"
#include "harness/train/epoch_report.hpp"
#include "harness/train/global_metrics.hpp"
#include "harness/train/mixed_precision.hpp"
#include "harness/train/run_checkpoints.hpp"
#include "harness/train/run_recorder.hpp"
#include "harness/train/time_to_target.hpp"
#include "harness/train/training_checkpoint.hpp"
#include "harness/train/training_config.hpp"
#include "harness/train/training_optimizer.hpp"
#include "harness/train/training_stop.hpp"
#include "harness/train/training_task.hpp"
#include "harness/train/workload.hpp"

namespace scalestudy::train {

class TrainingLoop {
 public:
  TrainingLoop(TrainingTask& task, RunContext& context, TrainingConfig config)
      : task_(task),
        context_(context),
        config_(std::move(config)),
        device_(context.device.device()),
        instruments_(config_.instrument, context.device.make_phase_clock()),
        precision_(config_.precision, device_.type()),
        profiler_(config_.profile_steps, instruments_.nvtx()),
        meter_(config_.measure_warmup_steps),
        progress_(context.is_rank0(), config_.log_interval),
        recorder_(context.writer, meter_, instruments_, context.device, device_),
        stop_(config_, context.communicator, device_, context.termination,
              context.rank_info.world_size),
        time_to_target_(config_.target, context.summary, context.is_rank0()),
        checkpoints_(context, config_, meter_, recorder_, time_to_target_, stop_) {}

  Status run();

 private:
  // Warm-up steps of a CUDA graph: eager steps that allocate gradients, optimizer state and
  // cuDNN plans before the capture.
  static constexpr int kGraphWarmupSteps = 3;

  // training_loop_setup.cpp: everything before the first step.
  Status prepare();
  Status place_training_split();
  void record_model_summary(const std::vector<torch::Tensor>& parameters);
  Status settle_intra_op_threads();
  Status calibrate();

  // training_loop.cpp: the epochs, their steps and validation.
  Result<std::optional<GlobalMetrics>> run_epoch(int64_t epoch);
  Status train_step(EpochBatches& loader, std::optional<data::Batch>& batch, TaskOutput& output);
  Status replay_step(const data::Batch& batch, double lr, TaskOutput& output);
  void zero_gradients();
  void graph_body();
  Result<std::optional<GlobalMetrics>> validate(int64_t epoch);
  Status finish(const std::optional<GlobalMetrics>& last_validation);
  Result<std::unique_ptr<EpochBatches>> training_batches(int64_t epoch, int64_t first_batch);
  Status record_attempt() { return recorder_.record_attempt(checkpoints_.attempt(), global_step_); }
  ShardContents shard_contents() {
    return ShardContents{task_.module(), *optimizer_, precision_, task_, device_};
  }

  at::MemoryFormat memory_format() const {
    return config_.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  }
  BatchPlacement placement() const { return BatchPlacement{device_, memory_format()}; }
  // Samples per step over all ranks: --batch-size is per rank; the loaders' BatchGeometry
  // splits this evenly again, so every rank's batch is exactly config_.batch_size.
  int64_t global_batch() const { return config_.batch_size * context_.rank_info.world_size; }

  TrainingTask& task_;
  RunContext& context_;
  TrainingConfig config_;
  torch::Device device_;
  metrics::StepInstrumentation instruments_;
  MixedPrecision precision_;
  profiling::ProfilerWindow profiler_;
  metrics::ThroughputMeter meter_;
  ProgressIndicator progress_;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<TrainingOptimizer> optimizer_;
  std::unique_ptr<dist::GradientBucketer> bucketer_;
  // --optimizer-sharding zero1 where the bucketer reduces (several ranks, or a process group).
  std::unique_ptr<dist::ParameterShards> shards_;
  // The collective that averages gradients: allreduce | reduce_scatter | none (self).
  std::string gradient_reduction_;
  std::optional<gpu::DeviceBatchLoader> resident_split_;  // --data-on-device
  std::unique_ptr<gpu::StepGraph> graph_;                 // --cuda-graph
  std::optional<data::Batch> graph_batch_;                // the graph's static inputs
  TaskOutput graph_output_;                               // the graph's static outputs
  Status graph_status_;                                   // of the captured all-reduces
  RunRecorder recorder_;
  TrainingStop stop_;
  int64_t global_step_ = 0;
  int64_t steps_per_epoch_ = 0;
  TimeToTargetClock time_to_target_;
  std::optional<metrics::CpuReading> cpu_at_start_;  // this attempt's first epoch
  RunCheckpoints checkpoints_;
};

}  // namespace scalestudy::train
