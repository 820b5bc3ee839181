// CPU time over a span of the run (the training loop): the host's busy CPU-seconds from
// /proc/stat (user, nice, system, irq, softirq, steal over every core) and this process's
// from getrusage. The report subtracts the run's ranks from the host's figure: what is
// left ran beside the training (a shared node, a CPU hog), a cause of stragglers that lies
// outside the run. Linux only; a reading that fails is empty. Plain functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace scalestudy::metrics {

struct CpuReading {
  double host_busy_s = 0;  // busy CPU-seconds of every core since boot
  double process_s = 0;    // this process's user + system CPU-seconds, every thread
  double wall_s = 0;       // a monotonic clock
};

std::optional<CpuReading> read_cpu_usage();

// The span between two readings, as the run's summary records it: "host_cpu_busy_s",
// "process_cpu_s", "cpu_span_wall_s".
std::map<std::string, double> cpu_usage_summary(const CpuReading& start, const CpuReading& end);

}  // namespace scalestudy::metrics
