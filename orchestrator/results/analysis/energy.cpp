#include "orchestrator/results/analysis/energy.hpp"

#include <algorithm>

namespace scalestudy::results {

std::optional<double> RankEnergy::avg_power_w() const {
  if (!energy_j || measured_s <= 0) return std::nullopt;
  return *energy_j / measured_s;
}

RunEnergy combine_rank_energy(std::vector<RankEnergy> ranks) {
  RunEnergy run;
  double joules = 0, power_sum = 0;
  int64_t samples = 0;
  bool every_energy = !ranks.empty();
  for (const RankEnergy& rank : ranks) {
    if (rank.energy_j) {
      joules += *rank.energy_j;
      power_sum += rank.avg_power_w().value_or(0);
    } else {
      every_energy = false;
    }
    samples += rank.samples;
    if (rank.peak_power_w)
      run.peak_power_w = std::max(run.peak_power_w.value_or(0), *rank.peak_power_w);
    if (run.unavailable.empty()) run.unavailable = rank.unavailable;
  }
  if (every_energy && samples > 0) {
    run.joules_per_sample = joules / static_cast<double>(samples);
    run.avg_power_w = power_sum / static_cast<double>(ranks.size());
  }
  run.ranks = std::move(ranks);
  return run;
}

std::string merge_names(const std::string& joined) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= joined.size()) {
    size_t comma = joined.find(',', start);
    if (comma == std::string::npos) comma = joined.size();
    std::string name = joined.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
    start = comma + 1;
  }
  std::string merged;
  for (const std::string& name : names) merged += (merged.empty() ? "" : ", ") + name;
  return merged;
}

}  // namespace scalestudy::results
