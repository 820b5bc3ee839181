// TelemetrySampler: a background thread that samples the process's resident memory every
// `interval_ms` into memory, for the run database's telemetry table (written once at the
// end, so sampling never touches the disk during training). GPU columns stay empty unless
// a GPU source (NVML, see gpu::DeviceRuntime::nvml) fills them. start()/stop()
// from one thread; the samples are handed over by stop(), after the thread joined.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace scalestudy::metrics {

struct TelemetrySample {
  double t_s = 0;  // seconds since the sampler started
  std::optional<int64_t> cpu_rss_bytes;
  std::optional<double> gpu_util_pct;
  std::optional<int64_t> gpu_mem_used_bytes;
  std::optional<double> gpu_power_w;
  std::optional<double> gpu_temp_c;
  // Not in the telemetry table: the energy table summarises them per measured window.
  std::optional<double> gpu_sm_clock_mhz;
  std::optional<uint64_t> gpu_clock_events;  // NVML's clock-event reason bits
};

// Fills the gpu_* fields of a sample; called on the sampler thread.
using TelemetrySource = std::function<void(TelemetrySample&)>;

class TelemetrySampler {
 public:
  explicit TelemetrySampler(int64_t interval_ms, TelemetrySource gpu_source = nullptr)
      : interval_ms_(interval_ms), gpu_source_(std::move(gpu_source)) {}
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;
  ~TelemetrySampler();

  void start();
  // Stops the thread (promptly, not after a full interval) and returns every sample.
  std::vector<TelemetrySample> stop();
  // What the samples' t_s counts from (set by start()).
  std::chrono::steady_clock::time_point started() const { return started_; }

 private:
  void run();

  int64_t interval_ms_;
  TelemetrySource gpu_source_;
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<TelemetrySample> samples_;
};

}  // namespace scalestudy::metrics
