// PhaseClock: how the duration of a step's phases is measured. SteadyPhaseClock reads
// std::chrono::steady_clock at begin and end (host time; right for CPU work). A device
// clock (CUDA events, EventPhaseClock) records asynchronously and reads its events one
// step late, so the host never waits for the step it has just queued; that is why
// collect() exists instead of durations returned by end(), and why its result is optional.
// Re-entering a phase within one step accumulates. Used by one thread.
#pragma once

#include <chrono>
#include <optional>

#include "harness/metrics/phase.hpp"

namespace scalestudy::metrics {

class PhaseClock {
 public:
  virtual ~PhaseClock() = default;
  virtual void begin(Phase phase) = 0;
  virtual void end(Phase phase) = 0;
  // Closes the current step and returns the times of the oldest step not returned yet,
  // when they are known: the step just ended for a host clock, the step before it for a
  // device clock (nothing after a run's first step).
  virtual std::optional<PhaseTimes> collect() = 0;
  // Waits for the device and returns the times collect() still holds back, if any.
  virtual std::optional<PhaseTimes> flush() = 0;
};

class SteadyPhaseClock : public PhaseClock {
 public:
  void begin(Phase phase) override;
  void end(Phase phase) override;
  std::optional<PhaseTimes> collect() override;
  std::optional<PhaseTimes> flush() override { return std::nullopt; }

 private:
  std::array<std::chrono::steady_clock::time_point, kPhaseCount> started_{};
  PhaseTimes accumulated_;
};

}  // namespace scalestudy::metrics
