#include "harness/metrics/phase.hpp"

namespace scalestudy::metrics {

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kData:
      return "data";
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kCommExposed:
      return "comm_exposed";
    case Phase::kOptimizer:
      return "optimizer";
    case Phase::kStep:
      return "step";
  }
  return "unknown";
}

}  // namespace scalestudy::metrics
