// Process memory as the kernel reports it: the peak resident set size (getrusage's
// ru_maxrss) and the current one (/proc/self/statm). Thread-safe.
#pragma once

#include <cstdint>

namespace scalestudy::metrics {

int64_t peak_rss_bytes();
// 0 when /proc is unavailable.
int64_t current_rss_bytes();

}  // namespace scalestudy::metrics
