#include "orchestrator/profiling/time_totals.hpp"

#include <algorithm>

namespace scalestudy::profiling {
namespace {

template <typename T>
std::vector<T> by_total_descending(std::vector<T> items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const T& a, const T& b) { return a.total_ns > b.total_ns; });
  return items;
}

}  // namespace

void KernelTotals::add(const std::string& name, int64_t duration_ns, int64_t instances) {
  KernelTime& kernel = by_name_[name];
  if (kernel.instances == 0) {
    kernel.name = name;
    kernel.category = classify_kernel(name);
  }
  kernel.total_ns += duration_ns;
  kernel.instances += instances;
}

std::vector<KernelTime> KernelTotals::sorted() const {
  std::vector<KernelTime> kernels;
  for (const auto& [name, kernel] : by_name_) kernels.push_back(kernel);
  return by_total_descending(std::move(kernels));
}

void RangeTotals::add(const std::string& domain, const std::string& name, int64_t duration_ns) {
  RangeTime& range = by_name_[{domain, name}];
  if (range.instances == 0) {
    range.domain = domain;
    range.name = name;
    range.min_ns = range.max_ns = duration_ns;
  }
  range.total_ns += duration_ns;
  range.instances += 1;
  range.min_ns = std::min(range.min_ns, duration_ns);
  range.max_ns = std::max(range.max_ns, duration_ns);
}

std::vector<RangeTime> RangeTotals::sorted() const {
  std::vector<RangeTime> ranges;
  for (const auto& [key, range] : by_name_) ranges.push_back(range);
  return by_total_descending(std::move(ranges));
}

}  // namespace scalestudy::profiling
