// Accumulators that sum GPU activities per kernel name and range instances per (domain,
// name), for the readers that see single events (SQLite export, ncu, Chrome trace) rather
// than a tool's own summary. Results come sorted by total time, largest first. Not
// synchronised.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/profiling/profile_data.hpp"

namespace scalestudy::profiling {

class KernelTotals {
 public:
  void add(const std::string& name, int64_t duration_ns, int64_t instances = 1);
  std::vector<KernelTime> sorted() const;

 private:
  std::map<std::string, KernelTime> by_name_;
};

class RangeTotals {
 public:
  void add(const std::string& domain, const std::string& name, int64_t duration_ns);
  std::vector<RangeTime> sorted() const;

 private:
  std::map<std::pair<std::string, std::string>, RangeTime> by_name_;
};

}  // namespace scalestudy::profiling
