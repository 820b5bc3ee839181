// CudaEventPhaseClock: the PhaseClock of the GPU path — metrics::EventPhaseClock over CUDA
// events recorded on the calling thread's current stream, read one step late (see
// EventPhaseClock), so timing neither blocks the host every step nor changes what it
// measures. Used by the training thread only; the device must be current when it is
// constructed.
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>

#include "harness/metrics/event_phase_clock.hpp"

namespace scalestudy::gpu {

// A timing CUDA event (CUDAEvent's default flags disable timing).
class CudaTimingEvent {
 public:
  void record() { event_.record(at::cuda::getCurrentCUDAStream()); }
  void synchronize() { event_.synchronize(); }
  double elapsed_ms_since(CudaTimingEvent& start) { return start.event_.elapsed_time(event_); }

 private:
  at::cuda::CUDAEvent event_{cudaEventDefault};
};

using CudaEventPhaseClock = metrics::EventPhaseClock<CudaTimingEvent>;

}  // namespace scalestudy::gpu
