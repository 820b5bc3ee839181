// Energy per sample, power and SM clocks of a run, from its ranks' `energy` rows (NVML's
// energy counter read at each epoch's measured window's ends; docs/run-database.md): the
// run's joules per training sample is every rank's energy over every rank's samples, so a
// rank without a counter leaves the run without the figure (and its reason). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scalestudy::results {

// One rank over its measured windows (epochs).
struct RankEnergy {
  int rank = 0;
  std::string device;  // "cuda:0"
  int64_t samples = 0;
  double measured_s = 0;
  std::optional<double> energy_j;  // absent unless every window had the counter
  std::optional<double> peak_power_w, sm_clock_max_mhz, sm_clock_min_mhz;
  std::string clock_events;  // the reasons seen, each once ("hw thermal slowdown, ...")
  std::string unavailable;   // why a figure is empty
  // energy_j / measured_s.
  std::optional<double> avg_power_w() const;
};

struct RunEnergy {
  std::optional<double> joules_per_sample;
  std::optional<double> avg_power_w;   // per GPU: the ranks' mean
  std::optional<double> peak_power_w;  // the largest sample of any rank
  std::string unavailable;             // the first rank's reason, where a figure is empty
  std::vector<RankEnergy> ranks;
};

RunEnergy combine_rank_energy(std::vector<RankEnergy> ranks);

// "a, b" and "b, c" as "a, b, c": each comma-separated name once, in first-seen order.
std::string merge_names(const std::string& joined);

}  // namespace scalestudy::results
