// Straggler attribution: which rank the others waited for at the gradient all-reduce. The
// DDP all-reduce makes every rank's step time equal, so step phases cannot say it; the
// ranks' arrivals can (run database `arrivals`: when each rank's first gradient bucket
// was ready, before any wait, on rank 0's clock). Per measured step that every rank
// recorded, the last to arrive is the one the others waited for, and the wait is the
// spread of the arrivals (last − first). A run names the rank that was last most often;
// hosts are tallied over runs, so a slow node shows up across them.
//
// Whether that rank stands out is a test of its lateness per step (its arrival minus the
// mean arrival of the other ranks) with two corrections that a plain binomial test of "last
// in k of n steps" lacks:
// - steps are not independent: a rank that is late stays late for stretches of steps (a
//   shared core, the OS scheduler), so the n steps count as n_eff = n (1 − ρ) / (1 + ρ)
//   independent ones, ρ the lateness's lag-1 autocorrelation (clipped to [0, kMaxLag1]);
// - the rank was picked as the most often last of N: the one-sided Student t p-value of a
//   mean lateness above 0 (n_eff − 1 degrees of freedom) becomes 1 − (1 − p)^N (Šidák).
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
  std::map<int, double> arrival_s;  // every rank's arrival at this step
};

struct RunStraggler {
  std::string run_id;
  int rank = 0;             // arrived last in the most steps (the lowest rank on a tie)
  std::string host;         // its host
  int steps = 0;            // measured steps every rank recorded
  double last_share = 0;    // fraction of `steps` in which `rank` arrived last
  double chance_share = 0;  // 1 / ranks: the share any rank has by chance
  // The rank's lateness per step (ms after the others' mean arrival): its mean, lag-1
  // autocorrelation, the effective number of independent steps, and the corrected p-value
  // of a mean above 0; the report names the rank only when it is below kStragglerAlpha.
  double lateness_mean_ms = 0;
  double lateness_lag1 = 0;
  double effective_steps = 0;
  double p_value = 1;
  // The run's median step (slowest rank), when recorded: a wait below kMinWaitShare of it,
  // or below kMinWaitMs, is too small to name anyone for, however regular.
  std::optional<double> step_ms_median;
  // Cores of `host` busy with work outside the run while it trained (the host's busy CPU
  // time less its ranks', over the span), when the ranks recorded it: at kOtherWorkCores or
  // more, or as large a share of a core as the wait is of a step, the cause of a late rank
  // may lie outside the training (a shared node, a CPU hog, a hypervisor taking a core).
  std::optional<double> host_other_work_cores;
  // Last beyond chance (p_value < kStragglerAlpha) by a wait that matters.
  bool late_beyond_chance() const;
  // ... and on a host whose other work cannot account for the wait: a straggler of the
  // run's own.
  bool stands_out() const;
  bool host_busy() const;
  double wait_median_ms = 0, wait_p95_ms = 0;  // per step, over all `steps`
  std::vector<StepStraggle> per_step;          // in step order
};

inline constexpr double kStragglerAlpha = 0.01;
// A wait matters from a tenth of a step and 2 ms: below that a rank's lead is what the OS
// scheduler and a rank's own bookkeeping shift a step by on a shared CPU host (unslowed
// 2-rank CPU runs on a quiet 2-core machine had one rank last in up to 100% of 10 steps by
// a median 0.5 to 1.7 ms; 2026-11-26, test_study_stragglers_local).
inline constexpr double kMinWaitShare = 0.10;
inline constexpr double kMinWaitMs = 2.0;
inline constexpr double kOtherWorkCores = 0.25;
// ρ near 1 would leave no effective step at all; a rank late in long stretches still
// counts as n / 39 independent steps.
inline constexpr double kMaxLag1 = 0.95;

// The lag-1 autocorrelation of `series` (0 for fewer than 3 values or no variance).
double lag1_autocorrelation(const std::vector<double>& series);

struct LatenessTest {
  double mean_ms = 0, lag1 = 0, effective_steps = 0;
  double p_value = 1;  // corrected; 1 with fewer than 2 steps or no variance and mean <= 0
};

// Whether `lateness_ms` (one rank's, per step) has a mean above 0, the rank picked as the
// most often last of `ranks` (the test above).
LatenessTest test_lateness(const std::vector<double>& lateness_ms, int ranks);

// Per host, over the runs of a study that recorded arrivals on several ranks.
struct HostStraggles {
  std::string host;
  int runs = 0;                          // runs with a rank on this host
  int runs_named = 0;                    // runs whose straggler (stands_out) ran here
  int steps = 0;                         // measured steps of those runs
  int steps_last = 0;                    // steps whose last arrival was a rank on this host
  std::optional<double> wait_median_ms;  // over the steps it was last; none when never
  // Its ranks' lateness (lateness_by_rank) over those steps, the median: a slow node's
  // ranks are late together, though another rank may be the last.
  std::optional<double> late_median_ms;
};

// The steps every rank recorded, in order; none with fewer than two ranks.
std::vector<StepStraggle> straggles_per_step(const RankArrivals& arrivals);

// Each rank's lateness per step, in step order: its arrival after the step's median
// arrival, in ms. Against the median, not the mean, so that one rank late by much does not
// make the others look early.
std::map<int, std::vector<double>> lateness_by_rank(const std::vector<StepStraggle>& steps);

// One rank at the gradient all-reduce over a point's repeats: how late it came, and how
// often it was the one the others waited for.
struct RankArrival {
  int rank = 0;
  std::string host;           // where it ran; repeats on different hosts give each, ", "
  int steps = 0;              // measured steps every rank recorded, over the repeats
  double late_median_ms = 0;  // its lateness per step (lateness_by_rank), the median
  double last_share = 0;      // fraction of `steps` in which it arrived last
};

// The ranks of `runs` (one point's repeats, with their per_step; `hosts_by_run` as
// tally_hosts takes it), ascending rank.
std::vector<RankArrival> rank_arrivals(
    const std::vector<const RunStraggler*>& runs,
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run);

// The run's straggler; nullopt without a step every rank recorded (one rank, no arrivals,
// a run recorded before arrivals existed). `host_of_rank` names the hosts ("?" if missing).
std::optional<RunStraggler> attribute_straggler(const std::string& run_id,
                                                const RankArrivals& arrivals,
                                                const std::map<int, std::string>& host_of_rank);

// One rank's CPU figures over its training (summary host_cpu_busy_s, process_cpu_s,
// cpu_span_wall_s).
struct RankCpu {
  std::string host;
  double host_busy_s = 0, process_s = 0, span_s = 0;
};

// Cores of `host` busy outside the run: its busiest reading of the host less the CPU time
// of the run's ranks there, over the longest span; nullopt without a reading there.
std::optional<double> other_work_cores(const std::vector<RankCpu>& ranks, const std::string& host);

// The hosts of `runs` (with each run's rank → host map), busiest straggler first (most
// steps last), then by name.
std::vector<HostStraggles> tally_hosts(
    const std::vector<RunStraggler>& runs,
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run);

}  // namespace scalestudy::results
