#include "harness/gpu/cuda_event_clock.hpp"

#include <ATen/cuda/CUDAContext.h>

namespace scalestudy::gpu {

at::cuda::CUDAEvent* CudaEventPhaseClock::record() {
  if (pool_used_ == pool_.size()) {
    // Timing needs cudaEventDefault; CUDAEvent's default flags disable timing.
    pool_.push_back(std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault));
  }
  at::cuda::CUDAEvent* event = pool_[pool_used_++].get();
  event->record(at::cuda::getCurrentCUDAStream());
  last_recorded_ = event;
  return event;
}

void CudaEventPhaseClock::begin(metrics::Phase phase) {
  intervals_.push_back(Interval{phase, record()});
  open_interval_[static_cast<size_t>(phase)] = static_cast<int>(intervals_.size());
}

void CudaEventPhaseClock::end(metrics::Phase phase) {
  int& open = open_interval_[static_cast<size_t>(phase)];
  if (open == 0) return;  // end without begin: nothing to time
  intervals_[open - 1].end = record();
  open = 0;
}

metrics::PhaseTimes CudaEventPhaseClock::collect() {
  metrics::PhaseTimes times;
  if (last_recorded_ != nullptr) last_recorded_->synchronize();
  for (const Interval& interval : intervals_) {
    if (interval.end == nullptr) continue;
    times[interval.phase] += interval.begin->elapsed_time(*interval.end);
  }
  intervals_.clear();
  open_interval_.fill(0);
  pool_used_ = 0;
  last_recorded_ = nullptr;
  return times;
}

}  // namespace scalestudy::gpu
