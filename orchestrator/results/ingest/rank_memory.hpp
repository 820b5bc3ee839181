// Per-rank memory of a point (seed 004): for each rank, the peaks PyTorch's caching
// allocator reported (of tensors, and of memory reserved from the driver), the host RSS
// (peak: the kernel's high-water mark or the largest sample; average over the telemetry
// samples), and on GPU runs the device memory NVML reported in use (peak and average over
// the samples). Over a point's repeats a peak is the largest and an average the mean of
// the repeats' averages. Functions over a Database used by one thread, and pure functions
// over values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

struct RankMemory {
  int rank = 0;
  std::string host;  // where it ran (m_run); repeats on different hosts give each, ", "
  std::optional<double> gpu_peak_bytes, gpu_reserved_peak_bytes;  // allocator (m_summary)
  std::optional<double> rss_peak_bytes, rss_avg_bytes;            // host resident set
  std::optional<double> nvml_peak_bytes, nvml_avg_bytes;  // device memory used (m_telemetry)
};

// One entry per rank that recorded anything, ascending rank.
Result<std::vector<RankMemory>> load_rank_memory(sqlite::Database& study_db,
                                                 const std::string& run_id);

// Per rank over repeats: peaks by maximum, averages by mean.
std::vector<RankMemory> combine_repeats(const std::vector<std::vector<RankMemory>>& repeats);

}  // namespace scalestudy::results
