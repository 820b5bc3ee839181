#include "harness/metrics/telemetry_summary.hpp"

#include <cstdint>

namespace scalestudy::metrics {

std::map<std::string, double> gpu_memory_summary(const std::vector<TelemetrySample>& samples) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  double sum_bytes = 0;
  int64_t readings = 0;
  std::map<int64_t, int64_t> count_by_mib;
  for (const TelemetrySample& sample : samples) {
    if (!sample.gpu_mem_used_bytes) continue;
    sum_bytes += static_cast<double>(*sample.gpu_mem_used_bytes);
    ++readings;
    ++count_by_mib[(*sample.gpu_mem_used_bytes + kMiB / 2) / kMiB];
  }
  if (readings == 0) return {};
  int64_t mode_mib = 0, mode_count = 0;
  for (const auto& [mib, count] : count_by_mib) {  // ascending: ties go to the larger
    if (count >= mode_count) {
      mode_mib = mib;
      mode_count = count;
    }
  }
  return {{"gpu_mem_avg_bytes", sum_bytes / static_cast<double>(readings)},
          {"gpu_mem_mode_bytes", static_cast<double>(mode_mib * kMiB)}};
}

}  // namespace scalestudy::metrics
