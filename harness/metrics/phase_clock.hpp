// PhaseClock: how the duration of a step's phases is measured. SteadyPhaseClock reads
// std::chrono::steady_clock at begin and end (host time; right for CPU work). A device
// clock (CUDA events) records asynchronously and resolves in collect(), once per step,
// which is why collect() exists instead of durations returned by end().
// Re-entering a phase within one step accumulates. Used by one thread.
#pragma once

#include <chrono>

#include "harness/metrics/phase.hpp"

namespace scalestudy::metrics {

class PhaseClock {
 public:
  virtual ~PhaseClock() = default;
  virtual void begin(Phase phase) = 0;
  virtual void end(Phase phase) = 0;
  // The times of the step just ended; starts the next step from zero.
  virtual PhaseTimes collect() = 0;
};

class SteadyPhaseClock : public PhaseClock {
 public:
  void begin(Phase phase) override;
  void end(Phase phase) override;
  PhaseTimes collect() override;

 private:
  std::array<std::chrono::steady_clock::time_point, kPhaseCount> started_{};
  PhaseTimes accumulated_;
};

}  // namespace scalestudy::metrics
