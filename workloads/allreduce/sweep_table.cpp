#include "workloads/allreduce/sweep_table.hpp"

#include <cstdio>

namespace scalestudy::collectives {

std::string sweep_table_header(const std::string& title) {
  char text[512];
  std::snprintf(text, sizeof text,
                "# %s\n"
                "#%12s %14s %9s %6s %10s %8s %8s %7s\n"
                "#%12s %14s %9s %6s %10s %8s %8s %7s\n",
                title.c_str(), "size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong",
                "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
  return text;
}

std::string sweep_table_row(const SizeResult& result, const std::string& reduction) {
  char text[256];
  std::snprintf(text, sizeof text, " %12lld %14lld %9s %6s %10.2f %8.3f %8.3f %7lld\n",
                static_cast<long long>(result.row.bytes), static_cast<long long>(result.elements),
                result.row.dtype.c_str(), reduction.c_str(), result.row.time_us,
                result.row.algbw_gbps, result.row.busbw_gbps, static_cast<long long>(result.wrong));
  return text;
}

std::string sweep_table_footer(const std::vector<SizeResult>& results) {
  const int64_t wrong = total_wrong(results);
  char text[256];
  std::snprintf(
      text, sizeof text, "# Out of bounds values : %lld %s\n# Avg bus bandwidth    : %.4f GB/s\n",
      static_cast<long long>(wrong), wrong == 0 ? "OK" : "FAILED", average_busbw_gbps(results));
  return text;
}

int64_t total_wrong(const std::vector<SizeResult>& results) {
  int64_t wrong = 0;
  for (const SizeResult& result : results) wrong += result.wrong;
  return wrong;
}

double average_busbw_gbps(const std::vector<SizeResult>& results) {
  if (results.empty()) return 0;
  double sum = 0;
  for (const SizeResult& result : results) sum += result.row.busbw_gbps;
  return sum / static_cast<double>(results.size());
}

}  // namespace scalestudy::collectives
