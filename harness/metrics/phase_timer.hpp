// PhaseTimer: one RAII scope that is both an NVTX range and a timed phase, so profiler
// timelines and the run database agree on what a phase is. StepInstrumentation hands them
// out; with instrumentation off every phase but the whole step is a no-op (the step time
// feeds throughput and is always measured). Used by the training thread only.
#pragma once

#include <memory>

#include "harness/metrics/nvtx_domain.hpp"
#include "harness/metrics/phase.hpp"
#include "harness/metrics/phase_clock.hpp"

namespace scalestudy::metrics {

class PhaseTimer {
 public:
  PhaseTimer(Phase phase, PhaseClock* clock, const NvtxDomain* nvtx);
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  ~PhaseTimer();

 private:
  Phase phase_;
  PhaseClock* clock_;
  const NvtxDomain* nvtx_;
};

class StepInstrumentation {
 public:
  // `clock` defaults to a SteadyPhaseClock; the GPU path passes its event clock.
  StepInstrumentation(bool enabled, std::unique_ptr<PhaseClock> clock = nullptr);

  PhaseTimer time(Phase phase);
  // The phase times of the step just ended (see PhaseClock::collect).
  PhaseTimes collect() { return clock_->collect(); }
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  std::unique_ptr<PhaseClock> clock_;
  NvtxDomain nvtx_;
};

}  // namespace scalestudy::metrics
