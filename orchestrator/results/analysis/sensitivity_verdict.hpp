// The verdict of a sensitivity study: which configuration changed throughput the most
// against the baseline configuration at the baseline's scale, whether it beat the
// baseline at all (every setting may trail it: then it is only the closest), whether that
// change stands out of the noise, and whether it meets the study's target gain. A plain
// value type.
#pragma once

#include <optional>
#include <string>

namespace scalestudy::results {

struct SensitivityVerdict {
  std::string baseline_config;
  std::string best_config;  // the largest throughput change, a loss when none beat the baseline
  double best_throughput_change_pct = 0;
  bool beats_baseline() const { return best_throughput_change_pct > 0; }
  std::optional<double> best_accuracy_change_points;
  std::optional<bool> target_met;  // when a target gain is set
  // Whether the best change stands out of the noise: Welch's t over the repeats of the
  // best and the baseline configuration (nullopt with fewer than 2 repeats), and when it
  // does not, the repeats that would resolve it.
  int repeats = 0;  // the fewer of the two points'
  std::optional<double> welch_t;
  std::optional<bool> significant;
  std::optional<int> repeats_needed;
};

}  // namespace scalestudy::results
