#include "harness/metrics/phase_timer.hpp"

namespace scalestudy::metrics {

PhaseTimer::PhaseTimer(Phase phase, int64_t global_step, PhaseClock* clock, const NvtxDomain* nvtx)
    : range_(nvtx, phase_name(phase), global_step), phase_(phase), clock_(clock) {
  if (clock_) clock_->begin(phase_);
}

PhaseTimer::~PhaseTimer() {
  if (clock_) clock_->end(phase_);
}

StepInstrumentation::StepInstrumentation(bool enabled, std::unique_ptr<PhaseClock> clock)
    : enabled_(enabled), clock_(clock ? std::move(clock) : std::make_unique<SteadyPhaseClock>()) {}

PhaseTimer StepInstrumentation::time(Phase phase, int64_t global_step) {
  if (enabled_) return PhaseTimer(phase, global_step, clock_.get(), &nvtx_);
  return PhaseTimer(phase, global_step, phase == Phase::kStep ? clock_.get() : nullptr, nullptr);
}

}  // namespace scalestudy::metrics
