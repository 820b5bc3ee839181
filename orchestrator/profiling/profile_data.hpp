// ProfileData: what one rank's profiler output says, whatever tool wrote it — GPU time per
// kernel name and wall time per NVTX range — as the readers (nsys stats CSV, nsys SQLite
// export, ncu CSV, the NVTX Chrome trace) produce it and the profile store keeps it.
// Plain value types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "orchestrator/profiling/kernel_category.hpp"

namespace scalestudy::profiling {

struct KernelTime {
  std::string name;  // demangled kernel name, or the copy kind ("[CUDA memcpy HtoD]")
  KernelCategory category = KernelCategory::kOther;
  int64_t total_ns = 0;
  int64_t instances = 0;
};

struct RangeTime {
  std::string domain;  // "scalestudy"; empty where the tool does not say
  std::string name;    // "step", "forward", ...
  int64_t total_ns = 0;
  int64_t instances = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
};

struct ProfileData {
  std::string source;  // "nsys-stats", "nsys-sqlite", "ncu", "nvtx-trace"
  std::vector<KernelTime> kernels;
  std::vector<RangeTime> ranges;
};

}  // namespace scalestudy::profiling
