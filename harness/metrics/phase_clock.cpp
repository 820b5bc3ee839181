#include "harness/metrics/phase_clock.hpp"

namespace scalestudy::metrics {

void SteadyPhaseClock::begin(Phase phase) {
  started_[static_cast<size_t>(phase)] = std::chrono::steady_clock::now();
}

void SteadyPhaseClock::end(Phase phase) {
  auto elapsed = std::chrono::steady_clock::now() - started_[static_cast<size_t>(phase)];
  accumulated_[phase] += std::chrono::duration<double, std::milli>(elapsed).count();
}

std::optional<PhaseTimes> SteadyPhaseClock::collect() {
  PhaseTimes times = accumulated_;
  accumulated_ = PhaseTimes{};
  return times;
}

}  // namespace scalestudy::metrics
