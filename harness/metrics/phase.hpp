// The phases of a training step, as timed and as named in NVTX ranges and in the run
// database's `steps` columns (<name>_ms). Plain values; thread-safe.
#pragma once

#include <array>
#include <cstddef>

namespace scalestudy::metrics {

enum class Phase { kData, kForward, kBackward, kCommExposed, kOptimizer, kStep };
constexpr size_t kPhaseCount = 6;

// "data", "forward", "backward", "comm_exposed", "optimizer", "step".
const char* phase_name(Phase phase);

// Milliseconds spent in each phase during one step (0 for phases not timed).
struct PhaseTimes {
  std::array<double, kPhaseCount> ms{};
  double& operator[](Phase phase) { return ms[static_cast<size_t>(phase)]; }
  double operator[](Phase phase) const { return ms[static_cast<size_t>(phase)]; }
};

}  // namespace scalestudy::metrics
