#include "orchestrator/results/analysis/repeat_keys.hpp"

#include <map>

namespace scalestudy::results {

std::set<std::string> repeat_derived_keys(const std::vector<RunMeasurement>& runs) {
  std::map<std::string, std::map<int, std::set<std::string>>> values_by_repeat;
  for (const auto& run : runs) {
    for (const auto& [key, value] : run.varied) values_by_repeat[key][run.repeat].insert(value);
  }
  std::set<std::string> keys;
  for (const auto& [key, by_repeat] : values_by_repeat) {
    if (by_repeat.size() < 2) continue;
    bool one_value_per_repeat = true;
    std::set<std::string> all_values;
    for (const auto& [repeat, values] : by_repeat) {
      one_value_per_repeat &= values.size() == 1;
      all_values.insert(values.begin(), values.end());
    }
    if (one_value_per_repeat && all_values.size() > 1) keys.insert(key);
  }
  return keys;
}

}  // namespace scalestudy::results
