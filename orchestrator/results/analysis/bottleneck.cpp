#include "orchestrator/results/analysis/bottleneck.hpp"

namespace scalestudy::results {

Bottleneck classify_bottleneck(const PhaseShares& shares, const BottleneckThresholds& thresholds) {
  const bool input = shares.data_pct > thresholds.input_bound_pct;
  const bool comm = shares.comm_exposed_pct > thresholds.comm_bound_pct;
  if (input && comm) {
    return shares.data_pct / thresholds.input_bound_pct >=
                   shares.comm_exposed_pct / thresholds.comm_bound_pct
               ? Bottleneck::kInput
               : Bottleneck::kCommunication;
  }
  if (input) return Bottleneck::kInput;
  if (comm) return Bottleneck::kCommunication;
  return Bottleneck::kCompute;
}

const char* to_string(Bottleneck bottleneck) {
  switch (bottleneck) {
    case Bottleneck::kInput:
      return "input";
    case Bottleneck::kCommunication:
      return "communication";
    case Bottleneck::kCompute:
      break;
  }
  return "compute";
}

}  // namespace scalestudy::results
