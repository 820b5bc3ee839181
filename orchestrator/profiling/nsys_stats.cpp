#include "orchestrator/profiling/nsys_stats.hpp"

#include "orchestrator/profiling/csv_table.hpp"

namespace scalestudy::profiling {
namespace {

constexpr const char* kTotal = "Total Time (ns)";

// Rows of a summary: name column, count column, total time.
Result<std::vector<KernelTime>> read_activity_summary(const std::string& path,
                                                      const std::string& name_column,
                                                      const std::string& count_column) {
  auto table = read_csv_table(path, {kTotal, count_column, name_column});
  if (!table) return table.status();
  std::vector<KernelTime> kernels;
  for (const auto& row : table->rows) {
    KernelTime kernel;
    kernel.name = table->cell(row, name_column).text;
    auto total = table->integer(row, kTotal);
    if (!total) return total.status();
    auto count = table->integer(row, count_column);
    if (!count) return count.status();
    kernel.total_ns = *total;
    kernel.instances = *count;
    kernel.category = classify_kernel(kernel.name);
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

}  // namespace

Result<std::vector<KernelTime>> read_nsys_kernel_summary(const std::string& path) {
  return read_activity_summary(path, "Name", "Instances");
}

Result<std::vector<KernelTime>> read_nsys_memory_summary(const std::string& path) {
  auto copies = read_activity_summary(path, "Operation", "Count");
  if (!copies) return copies;
  // "[CUDA memset]" holds no "memcpy"; every row of this report is a memory operation.
  for (KernelTime& copy : *copies) copy.category = KernelCategory::kMemcpy;
  return copies;
}

Result<std::vector<RangeTime>> read_nsys_nvtx_summary(const std::string& path) {
  auto table = read_csv_table(path, {kTotal, "Instances", "Min (ns)", "Max (ns)", "Range"});
  if (!table) return table.status();
  std::vector<RangeTime> ranges;
  for (const auto& row : table->rows) {
    RangeTime range;
    std::string name = table->cell(row, "Range").text;
    size_t colon = name.find(':');
    if (colon != std::string::npos) {
      range.domain = name.substr(0, colon);
      name = name.substr(colon + 1);
    }
    range.name = name;
    for (auto [field, target] : {std::pair<const char*, int64_t*>{kTotal, &range.total_ns},
                                 {"Instances", &range.instances},
                                 {"Min (ns)", &range.min_ns},
                                 {"Max (ns)", &range.max_ns}}) {
      auto value = table->integer(row, field);
      if (!value) return value.status();
      *target = *value;
    }
    ranges.push_back(std::move(range));
  }
  return ranges;
}

}  // namespace scalestudy::profiling
