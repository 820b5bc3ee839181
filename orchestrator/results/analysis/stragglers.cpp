#include "orchestrator/results/analysis/stragglers.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/results/analysis/student_t.hpp"

namespace scalestudy::results {
namespace {

std::string host_of(const std::map<int, std::string>& host_of_rank, int rank) {
  auto found = host_of_rank.find(rank);
  return found == host_of_rank.end() ? "?" : found->second;
}

const std::map<int, std::string>& hosts_of_run(
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run,
    const std::string& run_id) {
  static const std::map<int, std::string> kNoHosts;
  auto hosts = hosts_by_run.find(run_id);
  return hosts == hosts_by_run.end() ? kNoHosts : hosts->second;
}

}  // namespace

bool RunStraggler::late_beyond_chance() const {
  const bool large_enough = wait_median_ms >= kMinWaitMs &&
                            (!step_ms_median || wait_median_ms >= kMinWaitShare * *step_ms_median);
  return p_value < kStragglerAlpha && large_enough;
}

bool RunStraggler::host_busy() const {
  if (!host_other_work_cores) return false;
  // Other work all on the late rank's core delays it by that share of its time: enough to
  // account for a wait of the same share of a step, however far below kOtherWorkCores.
  const double explained = step_ms_median && *step_ms_median > 0
                               ? std::min(kOtherWorkCores, wait_median_ms / *step_ms_median)
                               : kOtherWorkCores;
  return *host_other_work_cores >= explained;
}

bool RunStraggler::stands_out() const {
  return late_beyond_chance() && !host_busy();
}

double lag1_autocorrelation(const std::vector<double>& series) {
  if (series.size() < 3) return 0;
  const double average = mean(series);
  double lagged = 0, variance = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const double deviation = series[i] - average;
    variance += deviation * deviation;
    if (i > 0) lagged += deviation * (series[i - 1] - average);
  }
  return variance > 0 ? lagged / variance : 0;
}

LatenessTest test_lateness(const std::vector<double>& lateness_ms, int ranks) {
  LatenessTest test;
  const double n = static_cast<double>(lateness_ms.size());
  if (n < 2) return test;
  test.mean_ms = mean(lateness_ms);
  test.lag1 = std::clamp(lag1_autocorrelation(lateness_ms), 0.0, kMaxLag1);
  test.effective_steps = std::max(2.0, n * (1 - test.lag1) / (1 + test.lag1));
  const double stddev = sample_stddev(lateness_ms);
  double one_rank = 1;
  if (stddev > 0) {
    const double t = test.mean_ms / (stddev / std::sqrt(test.effective_steps));
    one_rank = student_t_upper_tail(t, test.effective_steps - 1);
  } else if (test.mean_ms > 0) {
    one_rank = 0;  // late by the same amount at every step
  }
  // Šidák: the chance that the most often last of `ranks` independent ranks looks this late.
  test.p_value = 1 - std::pow(1 - one_rank, std::max(1, ranks));
  return test;
}

std::vector<StepStraggle> straggles_per_step(const RankArrivals& arrivals) {
  std::vector<StepStraggle> steps;
  if (arrivals.size() < 2) return steps;
  for (const auto& [step, unused] : arrivals.begin()->second) {
    int last_rank = 0;
    double first_s = 0, last_s = 0;
    bool complete = true, any = false;
    std::map<int, double> arrival_s;
    for (const auto& [rank, by_step] : arrivals) {
      auto found = by_step.find(step);
      if (found == by_step.end()) {
        complete = false;
        break;
      }
      if (!any || found->second > last_s) {
        last_s = found->second;
        last_rank = rank;
      }
      first_s = any ? std::min(first_s, found->second) : found->second;
      any = true;
      arrival_s[rank] = found->second;
    }
    if (complete) steps.push_back({last_rank, (last_s - first_s) * 1000, std::move(arrival_s)});
  }
  return steps;
}

std::map<int, std::vector<double>> lateness_by_rank(const std::vector<StepStraggle>& steps) {
  std::map<int, std::vector<double>> lateness_ms;
  std::vector<double> arrivals;
  for (const StepStraggle& step : steps) {
    arrivals.clear();
    for (const auto& [rank, arrival_s] : step.arrival_s) arrivals.push_back(arrival_s);
    const double median_s = median(arrivals);
    for (const auto& [rank, arrival_s] : step.arrival_s) {
      lateness_ms[rank].push_back((arrival_s - median_s) * 1000);
    }
  }
  return lateness_ms;
}

std::vector<RankArrival> rank_arrivals(
    const std::vector<const RunStraggler*>& runs,
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run) {
  struct Tally {
    std::vector<double> lateness_ms;
    int steps_last = 0;
    std::set<std::string> hosts;
  };
  std::map<int, Tally> by_rank;
  for (const RunStraggler* run : runs) {
    const auto& host_of_rank = hosts_of_run(hosts_by_run, run->run_id);
    for (auto& [rank, lateness_ms] : lateness_by_rank(run->per_step)) {
      Tally& tally = by_rank[rank];
      tally.lateness_ms.insert(tally.lateness_ms.end(), lateness_ms.begin(), lateness_ms.end());
      tally.hosts.insert(host_of(host_of_rank, rank));
    }
    for (const StepStraggle& step : run->per_step) ++by_rank[step.last_rank].steps_last;
  }
  std::vector<RankArrival> ranks;
  for (const auto& [rank, tally] : by_rank) {
    RankArrival arrival;
    arrival.rank = rank;
    for (const std::string& host : tally.hosts) {
      arrival.host += (arrival.host.empty() ? "" : ", ") + host;
    }
    arrival.steps = static_cast<int>(tally.lateness_ms.size());
    arrival.late_median_ms = median(tally.lateness_ms);
    arrival.last_share = arrival.steps ? static_cast<double>(tally.steps_last) / arrival.steps : 0;
    ranks.push_back(std::move(arrival));
  }
  return ranks;
}

std::optional<RunStraggler> attribute_straggler(const std::string& run_id,
                                                const RankArrivals& arrivals,
                                                const std::map<int, std::string>& host_of_rank) {
  RunStraggler run;
  run.run_id = run_id;
  run.per_step = straggles_per_step(arrivals);
  if (run.per_step.empty()) return std::nullopt;
  std::map<int, int> times_last;
  std::vector<double> waits_ms;
  for (const StepStraggle& step : run.per_step) {
    ++times_last[step.last_rank];
    waits_ms.push_back(step.wait_ms);
  }
  auto most = std::max_element(times_last.begin(), times_last.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  run.rank = most->first;
  run.host = host_of(host_of_rank, run.rank);
  run.steps = static_cast<int>(run.per_step.size());
  run.last_share = static_cast<double>(most->second) / run.steps;
  const int ranks = static_cast<int>(arrivals.size());
  run.chance_share = 1.0 / ranks;
  std::vector<double> lateness_ms;
  for (const StepStraggle& step : run.per_step) {
    double others_s = 0;
    for (const auto& [rank, arrival_s] : step.arrival_s) {
      if (rank != run.rank) others_s += arrival_s;
    }
    lateness_ms.push_back((step.arrival_s.at(run.rank) - others_s / (ranks - 1)) * 1000);
  }
  const LatenessTest test = test_lateness(lateness_ms, ranks);
  run.lateness_mean_ms = test.mean_ms;
  run.lateness_lag1 = test.lag1;
  run.effective_steps = test.effective_steps;
  run.p_value = test.p_value;
  run.wait_median_ms = median(waits_ms);
  run.wait_p95_ms = percentile(waits_ms, 0.95);
  return run;
}

std::optional<double> other_work_cores(const std::vector<RankCpu>& ranks, const std::string& host) {
  double host_busy_s = 0, ranks_s = 0, span_s = 0;
  bool any = false;
  for (const RankCpu& rank : ranks) {
    if (rank.host != host) continue;
    any = true;
    host_busy_s = std::max(host_busy_s, rank.host_busy_s);
    span_s = std::max(span_s, rank.span_s);
    ranks_s += rank.process_s;
  }
  if (!any || span_s <= 0) return std::nullopt;
  return std::max(0.0, host_busy_s - ranks_s) / span_s;
}

std::vector<HostStraggles> tally_hosts(
    const std::vector<RunStraggler>& runs,
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run) {
  std::map<std::string, HostStraggles> by_host;
  std::map<std::string, std::vector<double>> waits_by_host;     // steps it was last
  std::map<std::string, std::vector<double>> lateness_by_host;  // its ranks', every step
  for (const RunStraggler& run : runs) {
    const auto& host_of_rank = hosts_of_run(hosts_by_run, run.run_id);
    for (const auto& [rank, lateness_ms] : lateness_by_rank(run.per_step)) {
      auto& of_host = lateness_by_host[host_of(host_of_rank, rank)];
      of_host.insert(of_host.end(), lateness_ms.begin(), lateness_ms.end());
    }
    std::set<std::string> present;
    for (const auto& [rank, host] : host_of_rank) present.insert(host);
    for (const std::string& host : present) {
      HostStraggles& tally = by_host[host];
      tally.host = host;
      ++tally.runs;
      tally.steps += run.steps;
    }
    by_host[run.host].host = run.host;
    if (run.stands_out()) ++by_host[run.host].runs_named;
    for (const StepStraggle& step : run.per_step) {
      const std::string host = host_of(host_of_rank, step.last_rank);
      by_host[host].host = host;
      ++by_host[host].steps_last;
      waits_by_host[host].push_back(step.wait_ms);
    }
  }
  std::vector<HostStraggles> hosts;
  for (auto& [host, tally] : by_host) {
    if (auto waits = waits_by_host.find(host); waits != waits_by_host.end()) {
      tally.wait_median_ms = median(waits->second);
    }
    if (auto late = lateness_by_host.find(host); late != lateness_by_host.end()) {
      tally.late_median_ms = median(late->second);
    }
    hosts.push_back(tally);
  }
  std::stable_sort(hosts.begin(), hosts.end(), [](const HostStraggles& a, const HostStraggles& b) {
    return a.steps_last > b.steps_last;
  });
  return hosts;
}

}  // namespace scalestudy::results
