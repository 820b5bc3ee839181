#include "harness/metrics/cpu_usage.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace scalestudy::metrics {
namespace {

// The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal ...",
// in clock ticks.
std::optional<double> host_busy_seconds() {
  std::ifstream stat("/proc/stat");
  std::string line;
  if (!std::getline(stat, line) || line.rfind("cpu ", 0) != 0) return std::nullopt;
  std::istringstream fields(line.substr(4));
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) return std::nullopt;
  fields >> steal;  // absent on old kernels
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return (user + nice + system + irq + softirq + steal) / static_cast<double>(ticks);
}

double seconds(const timeval& time) {
  return time.tv_sec + time.tv_usec / 1e6;
}

}  // namespace

std::optional<CpuReading> read_cpu_usage() {
  auto host = host_busy_seconds();
  rusage usage{};
  if (!host || getrusage(RUSAGE_SELF, &usage) != 0) return std::nullopt;
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return CpuReading{*host, seconds(usage.ru_utime) + seconds(usage.ru_stime),
                    std::chrono::duration<double>(now).count()};
}

std::map<std::string, double> cpu_usage_summary(const CpuReading& start, const CpuReading& end) {
  return {{"host_cpu_busy_s", end.host_busy_s - start.host_busy_s},
          {"process_cpu_s", end.process_s - start.process_s},
          {"cpu_span_wall_s", end.wall_s - start.wall_s}};
}

}  // namespace scalestudy::metrics
