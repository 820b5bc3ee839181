// The run-level summary of the telemetry samples' device memory (NVML's used bytes):
// "gpu_mem_avg_bytes", their mean, and "gpu_mem_mode_bytes", their most frequent value at
// MiB resolution (the larger on a tie) — the plateau a training loop sits on once the
// caching allocator stopped growing, which a mean over the start-up ramp understates.
// Empty when no sample has a GPU memory reading (CPU runs). Pure function.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/metrics/telemetry_sampler.hpp"

namespace scalestudy::metrics {

std::map<std::string, double> gpu_memory_summary(const std::vector<TelemetrySample>& samples);

}  // namespace scalestudy::metrics
