#include "harness/metrics/phase_timer.hpp"

namespace scalestudy::metrics {

PhaseTimer::PhaseTimer(Phase phase, PhaseClock* clock, const NvtxDomain* nvtx)
    : phase_(phase), clock_(clock), nvtx_(nvtx) {
  if (nvtx_) nvtx_->push(phase_name(phase_));
  if (clock_) clock_->begin(phase_);
}

PhaseTimer::~PhaseTimer() {
  if (clock_) clock_->end(phase_);
  if (nvtx_) nvtx_->pop();
}

StepInstrumentation::StepInstrumentation(bool enabled, std::unique_ptr<PhaseClock> clock)
    : enabled_(enabled), clock_(clock ? std::move(clock) : std::make_unique<SteadyPhaseClock>()) {}

PhaseTimer StepInstrumentation::time(Phase phase) {
  if (enabled_) return PhaseTimer(phase, clock_.get(), &nvtx_);
  return PhaseTimer(phase, phase == Phase::kStep ? clock_.get() : nullptr, nullptr);
}

}  // namespace scalestudy::metrics
