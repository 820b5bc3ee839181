// Readers of `nsys stats --format csv` reports (Nsight Systems 2022.4 and later names):
//   cuda_gpu_kern_sum      "Time (%)","Total Time (ns)","Instances","Avg (ns)","Med (ns)",
//                          "Min (ns)","Max (ns)","StdDev (ns)","Name"
//   cuda_gpu_mem_time_sum  ... "Count", ..., "Operation"   (memory copies and sets)
//   nvtx_sum               ... "Instances", ..., "Style","Range"
// `nsys stats --output BASE` writes each as BASE_<report>.csv. nvtx_sum names a range of
// a domain "domain:range"; that prefix becomes RangeTime::domain. Pure apart from reading.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/profiling/profile_data.hpp"

namespace scalestudy::profiling {

Result<std::vector<KernelTime>> read_nsys_kernel_summary(const std::string& path);
Result<std::vector<KernelTime>> read_nsys_memory_summary(const std::string& path);
Result<std::vector<RangeTime>> read_nsys_nvtx_summary(const std::string& path);

}  // namespace scalestudy::profiling
