#include "orchestrator/results/report/report_cells.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scalestudy::results {

std::string fixed(double value, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  const std::string text = buffer;
  // A figure that rounds to zero prints as 0, not -0.00.
  const bool negative_zero = text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos;
  return negative_zero ? text.substr(1) : text;
}

std::string fixed(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : "-";
}

std::string percent(const std::optional<double>& fraction, int decimals) {
  return fraction ? fixed(*fraction * 100, decimals) : "-";
}

std::string signed_fixed(const std::optional<double>& value, int decimals) {
  if (!value) return "-";
  return (*value >= 0 ? "+" : "") + fixed(*value, decimals);
}

std::string magnitude(double value) {
  const double size = std::fabs(value);
  return fixed(value, size >= 1000 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : 3);
}

bool has_several_configs(const Report& report) {
  for (const auto& point : report.points) {
    if (point.config_label != report.points.front().config_label) return true;
  }
  return false;
}

bool shows_config(const Report& report) {
  return has_several_configs(report) || report.kind == "sensitivity";
}

std::string scale_header(const Report& report) {
  return report.gpu ? "GPUs" : "ranks";
}

MemoryUnit memory_unit(const std::vector<std::optional<double>>& figures) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  double largest = 0;
  for (const auto& value : figures) {
    if (value) largest = std::max(largest, *value);
  }
  return largest >= kGiB ? MemoryUnit{kGiB, "GiB"} : MemoryUnit{};
}

std::string in_unit(double bytes, const MemoryUnit& unit) {
  return fixed(bytes / unit.bytes, 2);
}

std::string in_unit(const std::optional<double>& bytes, const MemoryUnit& unit) {
  return bytes ? in_unit(*bytes, unit) : std::string("-");
}

}  // namespace scalestudy::results
