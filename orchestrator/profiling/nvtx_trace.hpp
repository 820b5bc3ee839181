// Reader of the Chrome traces that libscalestudy_nvtx_trace.so writes (the `torch`
// profile; format in nvtx_trace_injection.cpp): the ranges, matched begin to end per
// thread and domain, with their nesting, and their per-name totals for the profile store.
// A trace cut short (no closing "]", ranges left open by a crash) still reads; the open
// ranges are dropped. Pure apart from reading the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/profiling/profile_data.hpp"

namespace scalestudy::profiling {

struct TraceRange {
  std::string domain;
  std::string name;
  long pid = 0, tid = 0;
  double begin_us = 0, end_us = 0;
  int depth = 0;    // 0: outermost on its thread and domain
  int parent = -1;  // index into the ranges, -1 at depth 0
  std::optional<int64_t> payload;
};

struct TraceMark {
  std::string domain, name;
  long tid = 0;
  double at_us = 0;
  std::optional<int64_t> payload;
};

struct NvtxTrace {
  std::vector<TraceRange> ranges;  // in order of their begin
  std::vector<TraceMark> marks;
};

Result<NvtxTrace> read_nvtx_trace(const std::string& path);

// Per (domain, name) totals of the closed ranges, source "nvtx-trace".
ProfileData summarize_trace(const NvtxTrace& trace);

}  // namespace scalestudy::profiling
