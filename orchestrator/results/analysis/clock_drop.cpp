#include "orchestrator/results/analysis/clock_drop.hpp"

#include <cmath>

#include "orchestrator/results/analysis/energy.hpp"

namespace scalestudy::results {

std::optional<std::string> clock_drop_warning(const std::string& who, std::optional<double> max_mhz,
                                              std::optional<double> min_mhz,
                                              const std::string& reasons) {
  if (!max_mhz || !min_mhz || *max_mhz <= 0) return std::nullopt;
  if (*max_mhz - *min_mhz < kClockDropFraction * *max_mhz) return std::nullopt;
  std::string named;
  for (std::string rest = merge_names(reasons); !rest.empty();) {
    const size_t comma = rest.find(", ");
    const std::string name = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 2);
    if (name != "gpu idle") named += (named.empty() ? "" : ", ") + name;
  }
  auto mhz = [](double value) { return std::to_string(std::lround(value)); };
  return who + ": SM clock fell from " + mhz(*max_mhz) + " to " + mhz(*min_mhz) +
         " MHz during the measured steps: " + (named.empty() ? "no reason given by NVML" : named);
}

}  // namespace scalestudy::results
