// The run database's step rows, measured windows, arrivals and attempts (run_recorder.hpp).
#include "harness/train/run_recorder.hpp"

#include <chrono>
#include <string>

namespace scalestudy::train {

Status RunRecorder::open_measured_window() {
  if (Status written = flush_rows(); !written) return written;
  if (!memory_peaks_reset_) {
    device_runtime_.reset_memory_peaks();
    memory_peaks_reset_ = true;
  }
  meter_.open_window(std::chrono::steady_clock::now());
  return Status::ok();
}

std::optional<double> RunRecorder::hold_step_row(const record::StepRow& row,
                                                 const torch::Tensor& loss) {
  pending_rows_.push_back(PendingRow{row});
  return step_losses_.push(loss);
}

Status RunRecorder::write_complete_rows(std::optional<double> previous_loss) {
  return complete_rows(instruments_.collect(), previous_loss);
}

Status RunRecorder::flush_rows() {
  return complete_rows(instruments_.flush(), step_losses_.drain());
}

Status RunRecorder::complete_rows(std::optional<metrics::PhaseTimes> times,
                                  std::optional<double> loss) {
  for (PendingRow& pending : pending_rows_) {
    if (times && !pending.timed) {
      pending.row.times = *times;
      pending.timed = true;
      times.reset();
    }
    if (loss && !pending.row.loss) {
      pending.row.loss = loss;
      loss.reset();
    }
  }
  while (!pending_rows_.empty() && pending_rows_.front().timed && pending_rows_.front().row.loss) {
    const record::StepRow row = std::move(pending_rows_.front().row);
    pending_rows_.pop_front();
    meter_.record(row.global_step, row.samples, row.times[metrics::Phase::kStep]);
    if (Status written = writer_.add_step(row); !written) return written;
  }
  return Status::ok();
}

void RunRecorder::record_arrival(int64_t global_step, const dist::StepArrival& arrival) {
  if (meter_.is_warmup(global_step)) return;
  arrivals_.push_back({global_step, arrival.arrival_unix_s});
  allreduce_spans_ms_.push_back(arrival.span_ms);
}

Status RunRecorder::record_attempt(const TrainingAttempt& attempt, int64_t end_step) {
  const metrics::ThroughputTotals& total = meter_.run_measured();
  if (Status written = writer_.add_arrivals(arrivals_); !written) return written;
  arrivals_.clear();
  const std::string prefix = "attempt." + std::to_string(attempt.number) + ".";
  auto text = [](double value) { return std::to_string(value); };
  const metrics::ThroughputTotals& start = attempt.meter_start;
  return writer_.add_provenance(
      {{prefix + "first_step", std::to_string(attempt.resume_step < 0 ? 0 : attempt.resume_step)},
       {prefix + "end_step", std::to_string(end_step)},
       {prefix + "measured_steps", std::to_string(total.steps - start.steps)},
       {prefix + "measured_samples", std::to_string(total.samples - start.samples)},
       {prefix + "measured_ms", text(total.elapsed_ms() - start.elapsed_ms())},
       {prefix + "checkpoint_write_s", text(attempt.checkpoint_write_s)}});
}

}  // namespace scalestudy::train
