// RunRecorder: what a training attempt writes into the rank's run database step by step,
// and its part of the run at the end. Each step's `steps` row waits for its phase times,
// which a device clock delivers one step late, and for its loss, read one step late on
// every device; complete rows are written in order and counted by the throughput meter.
// The measured window opens at an epoch's first measured step with the device drained
// (warm-up's memory peaks dropped the first time). Each measured step's arrival at the
// gradient all-reduce goes to `arrivals`, its span to the summary's median. The attempt's
// steps and what of them was measured go to the provenance table ("attempt.<k>.*").
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/dist/gradient_bucketer.hpp"
#include "harness/gpu/device_runtime.hpp"
#include "harness/metrics/phase_timer.hpp"
#include "harness/metrics/throughput_meter.hpp"
#include "harness/record/run_writer.hpp"
#include "harness/train/scalar_readback.hpp"

namespace scalestudy::train {

// One attempt of a run: which one, the step it started at, and what its checkpoints cost.
// A resumed attempt follows its checkpoint's (RunCheckpoints).
struct TrainingAttempt {
  int number = 1;                         // of the run, 1 without a checkpoint
  int64_t resume_step = -1;               // the step this attempt started at; -1: step 0
  metrics::ThroughputTotals meter_start;  // run totals at this attempt's start
  int checkpoints_written = 0;
  double checkpoint_write_s = 0;
};

class RunRecorder {
 public:
  // Every reference must outlive the recorder; `device` is the run's.
  RunRecorder(record::RunWriter& writer, metrics::ThroughputMeter& meter,
              metrics::StepInstrumentation& instruments, gpu::DeviceRuntime& device_runtime,
              const torch::Device& device)
      : writer_(writer),
        meter_(meter),
        instruments_(instruments),
        device_runtime_(device_runtime),
        step_losses_(device) {}

  // The first measured step of an epoch: the device drained (the held step's row
  // written), the wall-clock window opens; the first time, warm-up's memory peaks go.
  Status open_measured_window();
  // Holds a step's row and starts bringing back its loss; returns the step before's loss,
  // if one is pending (this step's is still being computed on a device).
  std::optional<double> hold_step_row(const record::StepRow& row, const torch::Tensor& loss);
  // Writes the rows complete with the phase times collected now and `previous_loss`.
  Status write_complete_rows(std::optional<double> previous_loss);
  // Waits for the device and writes every pending row (at an epoch's end, before a
  // checkpoint, when a measured window opens).
  Status flush_rows();

  // A measured step's arrival at the gradient all-reduce, and how long its all-reduce took.
  void record_arrival(int64_t global_step, const dist::StepArrival& arrival);
  // The measured steps' all-reduce spans of this attempt.
  const std::vector<double>& allreduce_spans_ms() const { return allreduce_spans_ms_; }

  // This attempt's part of the run in the provenance table ("attempt.<k>.*"): the steps it
  // ran up to `end_step` and what of them was measured (its warm-up excluded); the run's
  // totals combine them. The arrivals not yet written go first.
  Status record_attempt(const TrainingAttempt& attempt, int64_t end_step);

 private:
  // `times` and `loss` belong to the oldest row still without them.
  Status complete_rows(std::optional<metrics::PhaseTimes> times, std::optional<double> loss);

  record::RunWriter& writer_;
  metrics::ThroughputMeter& meter_;
  metrics::StepInstrumentation& instruments_;
  gpu::DeviceRuntime& device_runtime_;
  std::vector<record::ArrivalRow> arrivals_;  // measured steps' not yet written
  std::vector<double> allreduce_spans_ms_;    // measured steps' all-reduce, this attempt
  // A step's row until its phase times and loss are in (complete_rows).
  struct PendingRow {
    record::StepRow row;
    bool timed = false;
  };
  std::deque<PendingRow> pending_rows_;
  StepLossReadback step_losses_;
  bool memory_peaks_reset_ = false;
};

}  // namespace scalestudy::train
