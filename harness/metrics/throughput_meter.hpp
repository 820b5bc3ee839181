// ThroughputMeter: samples and step times of this rank, with the first `warmup_steps`
// steps of the run excluded (allocator growth, thread pools, cold caches) — of each attempt,
// for a run resumed from a checkpoint (resume()). Keeps run and
// per-epoch totals and every measured step time (for the median). Two times per total:
// the sum of the steps' own times (device events on a GPU) and the wall time of the
// measured window — from the first measured step's start to the last step's end, device
// drained at both ends — which also counts the host work between steps; throughput is
// reported from the wall time. The global figure is the driver's: sum of samples over
// ranks / the slowest rank's time. Used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace scalestudy::metrics {

// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> values);

struct ThroughputTotals {
  int64_t steps = 0;
  int64_t samples = 0;
  double step_ms = 0;  // sum of the steps' own times
  double wall_ms = 0;  // wall time of the measured window; 0 where none was open
  // The wall time where a window was measured, else the sum of step times.
  double elapsed_ms() const { return wall_ms > 0 ? wall_ms : step_ms; }
};

class ThroughputMeter {
 public:
  // What a resumed run carries over from its earlier attempts (training checkpoints).
  struct State {
    ThroughputTotals run_measured, epoch_measured, epoch_all;
    std::vector<double> measured_step_ms;
  };

  explicit ThroughputMeter(int64_t warmup_steps)
      : warmup_steps_(warmup_steps), warmup_end_(warmup_steps) {}

  // Steps are numbered from 0 over the whole run; after resume(), the first warmup_steps
  // from the resumed step are warm-up again.
  bool is_warmup(int64_t global_step) const { return global_step < warmup_end_; }
  void record(int64_t global_step, int64_t samples, double step_ms);
  void start_epoch();
  // The measured window of the current epoch: open before its first measured step, close
  // after its last, each time with the device drained.
  void open_window(std::chrono::steady_clock::time_point now);
  void close_window(std::chrono::steady_clock::time_point now);
  bool window_open() const { return window_start_.has_value(); }

  // Non-warm-up steps of the run and of the current epoch; all steps of the epoch, for an
  // epoch made only of warm-up steps.
  const ThroughputTotals& run_measured() const { return run_measured_; }
  const ThroughputTotals& epoch_measured() const { return epoch_measured_; }
  const ThroughputTotals& epoch_all() const { return epoch_all_; }
  // Median of the non-warm-up step times; 0 without any.
  double median_step_ms() const;

  // The totals so far; call with the window closed.
  State state() const;
  // Continues the totals of `state` from `global_step`, the first step of a new attempt,
  // which warms up again: each attempt's warm-up is excluded, none counted twice.
  void resume(State state, int64_t global_step);

 private:
  int64_t warmup_steps_;
  int64_t warmup_end_;  // first measured step
  ThroughputTotals run_measured_, epoch_measured_, epoch_all_;
  std::vector<double> measured_step_ms_;
  std::optional<std::chrono::steady_clock::time_point> window_start_;
};

}  // namespace scalestudy::metrics
