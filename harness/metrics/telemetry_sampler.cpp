#include "harness/metrics/telemetry_sampler.hpp"

#include "harness/metrics/memory.hpp"

namespace scalestudy::metrics {

TelemetrySampler::~TelemetrySampler() {
  stop();
}

void TelemetrySampler::start() {
  if (thread_.joinable()) return;
  started_ = std::chrono::steady_clock::now();
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

std::vector<TelemetrySample> TelemetrySampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(samples_);
}

void TelemetrySampler::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    TelemetrySample sample;
    sample.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    sample.cpu_rss_bytes = current_rss_bytes();
    if (gpu_source_) gpu_source_(sample);
    samples_.push_back(sample);
    wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stopping_; });
  }
}

}  // namespace scalestudy::metrics
