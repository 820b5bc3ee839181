#include "harness/gpu/memory_peaks.hpp"

namespace scalestudy::gpu {

void MemoryPeakHistory::before_reset(const MemoryPeaks& peaks) {
  before_reset_.allocated_bytes = std::max(before_reset_.allocated_bytes, peaks.allocated_bytes);
  before_reset_.reserved_bytes = std::max(before_reset_.reserved_bytes, peaks.reserved_bytes);
}

std::map<std::string, double> MemoryPeakHistory::summary(const MemoryPeaks& since_reset) const {
  return {
      {"gpu_mem_peak_bytes", static_cast<double>(since_reset.allocated_bytes)},
      {"gpu_mem_reserved_peak_bytes", static_cast<double>(since_reset.reserved_bytes)},
      {"gpu_mem_peak_all_time_bytes",
       static_cast<double>(std::max(before_reset_.allocated_bytes, since_reset.allocated_bytes))},
      {"gpu_mem_reserved_peak_all_time_bytes",
       static_cast<double>(std::max(before_reset_.reserved_bytes, since_reset.reserved_bytes))},
  };
}

}  // namespace scalestudy::gpu
