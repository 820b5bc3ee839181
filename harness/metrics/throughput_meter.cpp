#include "harness/metrics/throughput_meter.hpp"

#include <algorithm>

namespace scalestudy::metrics {
namespace {

void add(ThroughputTotals& totals, int64_t samples, double step_ms) {
  ++totals.steps;
  totals.samples += samples;
  totals.step_ms += step_ms;
}

}  // namespace

void ThroughputMeter::record(int64_t global_step, int64_t samples, double step_ms) {
  add(epoch_all_, samples, step_ms);
  if (is_warmup(global_step)) return;
  add(run_measured_, samples, step_ms);
  add(epoch_measured_, samples, step_ms);
  measured_step_ms_.push_back(step_ms);
}

void ThroughputMeter::start_epoch() {
  epoch_measured_ = ThroughputTotals{};
  epoch_all_ = ThroughputTotals{};
}

void ThroughputMeter::open_window(std::chrono::steady_clock::time_point now) {
  window_start_ = now;
}

void ThroughputMeter::close_window(std::chrono::steady_clock::time_point now) {
  if (!window_start_) return;
  const double window_ms = std::chrono::duration<double, std::milli>(now - *window_start_).count();
  run_measured_.wall_ms += window_ms;
  epoch_measured_.wall_ms += window_ms;
  window_start_.reset();
}

ThroughputMeter::State ThroughputMeter::state() const {
  return State{run_measured_, epoch_measured_, epoch_all_, measured_step_ms_};
}

void ThroughputMeter::resume(State state, int64_t global_step) {
  run_measured_ = state.run_measured;
  epoch_measured_ = state.epoch_measured;
  epoch_all_ = state.epoch_all;
  measured_step_ms_ = std::move(state.measured_step_ms);
  warmup_end_ = global_step + warmup_steps_;
  window_start_.reset();
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  double upper = values[middle];
  double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2;
}

double ThroughputMeter::median_step_ms() const {
  return median_of(measured_step_ms_);
}

}  // namespace scalestudy::metrics
