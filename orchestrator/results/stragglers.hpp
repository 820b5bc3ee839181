// Straggler attribution: which rank the others waited for at the gradient all-reduce. The
// DDP all-reduce makes every rank's step time equal, so step phases cannot say it; the
// ranks' arrivals can (run database `arrivals`: when each rank's first gradient bucket
// was ready, before any wait, on rank 0's clock). Per measured step that every rank
// recorded, the last to arrive is the one the others waited for, and the wait is the
// spread of the arrivals (last − first). A run names the rank that was last most often;
// hosts are tallied over runs, so a slow node shows up across them.
// Pure functions over value types; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace scalestudy::results {

// One run's arrivals: per rank, per global step, seconds on one clock.
using RankArrivals = std::map<int, std::map<int64_t, double>>;

// One measured step: who arrived last and how long the first arrival waited for it.
struct StepStraggle {
  int last_rank = 0;
  double wait_ms = 0;
};

struct RunStraggler {
  std::string run_id;
  int rank = 0;           // arrived last in the most steps (the lowest rank on a tie)
  std::string host;       // its host
  int steps = 0;          // measured steps every rank recorded
  double last_share = 0;  // fraction of `steps` in which `rank` arrived last
  // Without a straggler every rank is last by chance, 1 / ranks of the steps. `p_value`: the
  // chance of `rank` being last in at least last_share of the steps that way (one-sided
  // binomial); the report names the rank only when it is below kStragglerAlpha.
  double chance_share = 0;
  double p_value = 1;
  // The run's median step (slowest rank), when recorded: a wait below kMinWaitShare of it
  // is too small to name anyone for, however regular.
  std::optional<double> step_ms_median;
  bool stands_out() const;
  double wait_median_ms = 0, wait_p95_ms = 0;  // per step, over all `steps`
  std::vector<StepStraggle> per_step;          // in step order
};

inline constexpr double kStragglerAlpha = 0.01;
inline constexpr double kMinWaitShare = 0.10;

// P(X >= successes) for X ~ Binomial(trials, probability).
double binomial_upper_tail(int successes, int trials, double probability);

// Per host, over the runs of a study that recorded arrivals on several ranks.
struct HostStraggles {
  std::string host;
  int runs = 0;                          // runs with a rank on this host
  int runs_named = 0;                    // runs whose straggler (stands_out) ran here
  int steps = 0;                         // measured steps of those runs
  int steps_last = 0;                    // steps whose last arrival was a rank on this host
  std::optional<double> wait_median_ms;  // over the steps it was last; none when never
};

// The steps every rank recorded, in order; none with fewer than two ranks.
std::vector<StepStraggle> straggles_per_step(const RankArrivals& arrivals);

// The run's straggler; nullopt without a step every rank recorded (one rank, no arrivals,
// a run recorded before arrivals existed). `host_of_rank` names the hosts ("?" if missing).
std::optional<RunStraggler> attribute_straggler(const std::string& run_id,
                                                const RankArrivals& arrivals,
                                                const std::map<int, std::string>& host_of_rank);

// The hosts of `runs` (with each run's rank → host map), busiest straggler first (most
// steps last), then by name.
std::vector<HostStraggles> tally_hosts(
    const std::vector<RunStraggler>& runs,
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run);

}  // namespace scalestudy::results
