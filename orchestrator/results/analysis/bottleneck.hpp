// Classifies a run as input-, communication- or compute-bound from the shares of its step
// time spent waiting for data and for exposed (non-overlapped) all-reduces. Pure
// functions; thread-safe.
#pragma once

#include <string>

namespace scalestudy::results {

enum class Bottleneck { kCompute, kInput, kCommunication };

struct BottleneckThresholds {
  double input_bound_pct = 5;  // data wait above this share of the step: input-bound
  double comm_bound_pct = 20;  // exposed communication above this share: comm-bound
};

// Shares of the mean step time, in percent.
struct PhaseShares {
  double data_pct = 0;
  double compute_pct = 0;  // forward + backward
  double comm_exposed_pct = 0;
  double optimizer_pct = 0;
};

// Both thresholds exceeded: the phase that exceeds its threshold by the larger factor.
Bottleneck classify_bottleneck(const PhaseShares& shares, const BottleneckThresholds& thresholds);
const char* to_string(Bottleneck bottleneck);  // "compute", "input", "communication"

}  // namespace scalestudy::results
