#include "orchestrator/results/stragglers.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "orchestrator/results/statistics.hpp"

namespace scalestudy::results {
namespace {

std::string host_of(const std::map<int, std::string>& host_of_rank, int rank) {
  auto found = host_of_rank.find(rank);
  return found == host_of_rank.end() ? "?" : found->second;
}

}  // namespace

bool RunStraggler::stands_out() const {
  const bool large_enough = !step_ms_median || wait_median_ms >= kMinWaitShare * *step_ms_median;
  return p_value < kStragglerAlpha && large_enough;
}

double binomial_upper_tail(int successes, int trials, double probability) {
  if (successes <= 0) return 1;
  if (probability <= 0) return 0;
  if (probability >= 1) return 1;
  double tail = 0;
  for (int k = successes; k <= trials; ++k) {
    tail +=
        std::exp(std::lgamma(trials + 1.0) - std::lgamma(k + 1.0) - std::lgamma(trials - k + 1.0) +
                 k * std::log(probability) + (trials - k) * std::log1p(-probability));
  }
  return std::min(tail, 1.0);
}

std::vector<StepStraggle> straggles_per_step(const RankArrivals& arrivals) {
  std::vector<StepStraggle> steps;
  if (arrivals.size() < 2) return steps;
  for (const auto& [step, unused] : arrivals.begin()->second) {
    int last_rank = 0;
    double first_s = 0, last_s = 0;
    bool complete = true, any = false;
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
    }
    if (complete) steps.push_back({last_rank, (last_s - first_s) * 1000});
  }
  return steps;
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
  run.chance_share = 1.0 / static_cast<double>(arrivals.size());
  run.p_value = binomial_upper_tail(most->second, run.steps, run.chance_share);
  run.wait_median_ms = median(waits_ms);
  run.wait_p95_ms = percentile(waits_ms, 0.95);
  return run;
}

std::vector<HostStraggles> tally_hosts(
    const std::vector<RunStraggler>& runs,
    const std::map<std::string, std::map<int, std::string>>& hosts_by_run) {
  std::map<std::string, HostStraggles> by_host;
  std::map<std::string, std::vector<double>> waits_by_host;  // steps it was last
  for (const RunStraggler& run : runs) {
    auto hosts = hosts_by_run.find(run.run_id);
    const std::map<int, std::string> no_hosts;
    const auto& host_of_rank = hosts == hosts_by_run.end() ? no_hosts : hosts->second;
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
    hosts.push_back(tally);
  }
  std::stable_sort(hosts.begin(), hosts.end(), [](const HostStraggles& a, const HostStraggles& b) {
    return a.steps_last > b.steps_last;
  });
  return hosts;
}

}  // namespace scalestudy::results
