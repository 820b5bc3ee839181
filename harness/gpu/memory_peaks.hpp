// MemoryPeakHistory: the caching allocator's peaks split at the end of warm-up. The
// allocator's counters are reset there (cuDNN autotuning, the resident data set's upload
// and first-step allocations no longer count), so the run's peaks describe its steady
// state; the peaks from before the reset survive as the all-time keys. Plain value; used
// by the training thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

namespace scalestudy::gpu {

struct MemoryPeaks {
  int64_t allocated_bytes = 0;  // tensors alive at the worst moment
  int64_t reserved_bytes = 0;   // what the caching allocator held from the driver
};

class MemoryPeakHistory {
 public:
  // Call with the allocator's peaks just before resetting them.
  void before_reset(const MemoryPeaks& peaks);
  // "gpu_mem_peak_bytes" and "gpu_mem_reserved_peak_bytes": `since_reset` (the allocator's
  // current peaks); "gpu_mem_peak_all_time_bytes" and "gpu_mem_reserved_peak_all_time_bytes":
  // the larger of those and every peak before a reset.
  std::map<std::string, double> summary(const MemoryPeaks& since_reset) const;

 private:
  MemoryPeaks before_reset_;
};

}  // namespace scalestudy::gpu
