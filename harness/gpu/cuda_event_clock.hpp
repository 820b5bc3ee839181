// CudaEventPhaseClock: the PhaseClock of the GPU path. begin()/end() record CUDA events on
// the calling thread's current stream — no synchronisation, so timing does not change
// what it measures; collect() resolves the step's events after waiting for the last event
// recorded (the step's end, on this stream only, never the whole device) and turns each
// begin/end pair into milliseconds of device time. Re-entering a phase within one step
// accumulates. Events come from a pool reused step after step.
// Used by the training thread only; the device must be current when it is constructed.
#pragma once

#include <ATen/cuda/CUDAEvent.h>

#include <array>
#include <memory>
#include <vector>

#include "harness/metrics/phase_clock.hpp"

namespace scalestudy::gpu {

class CudaEventPhaseClock : public metrics::PhaseClock {
 public:
  void begin(metrics::Phase phase) override;
  void end(metrics::Phase phase) override;
  metrics::PhaseTimes collect() override;

 private:
  struct Interval {
    metrics::Phase phase;
    at::cuda::CUDAEvent* begin;
    at::cuda::CUDAEvent* end = nullptr;
  };
  at::cuda::CUDAEvent* record();

  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> pool_;
  size_t pool_used_ = 0;  // events recorded this step
  std::vector<Interval> intervals_;
  std::array<int, metrics::kPhaseCount> open_interval_{};  // index + 1 into intervals_; 0: none
  at::cuda::CUDAEvent* last_recorded_ = nullptr;
};

}  // namespace scalestudy::gpu
