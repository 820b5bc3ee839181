// PhaseTimer: one RAII scope that is both an NVTX range and a timed phase, so profiler
// timelines and the run database agree on what a phase is; the range's payload is the
// global step. StepInstrumentation hands them out; with instrumentation off every phase but
// the whole step is a no-op (the step time feeds throughput and is always measured) and no
// NVTX range or mark is emitted at all. Used by the training thread only.
#pragma once

#include <cstdint>
#include <memory>

#include "harness/metrics/nvtx_domain.hpp"
#include "harness/metrics/phase.hpp"
#include "harness/metrics/phase_clock.hpp"

namespace scalestudy::metrics {

class PhaseTimer {
 public:
  PhaseTimer(Phase phase, int64_t global_step, PhaseClock* clock, const NvtxDomain* nvtx);
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  ~PhaseTimer();

 private:
  NvtxRange range_;  // declared first: opens before the clock starts, closes after it stops
  Phase phase_;
  PhaseClock* clock_;
};

class StepInstrumentation {
 public:
  // `clock` defaults to a SteadyPhaseClock; the GPU path passes its event clock.
  StepInstrumentation(bool enabled, std::unique_ptr<PhaseClock> clock = nullptr);

  PhaseTimer time(Phase phase, int64_t global_step);
  // See PhaseClock::collect and flush.
  std::optional<PhaseTimes> collect() { return clock_->collect(); }
  std::optional<PhaseTimes> flush() { return clock_->flush(); }
  bool enabled() const { return enabled_; }
  // The domain for the loop's other ranges and marks (eval, allreduce, profiler window);
  // null with instrumentation off.
  const NvtxDomain* nvtx() const { return enabled_ ? &nvtx_ : nullptr; }

 private:
  bool enabled_;
  std::unique_ptr<PhaseClock> clock_;
  NvtxDomain nvtx_;
};

}  // namespace scalestudy::metrics
