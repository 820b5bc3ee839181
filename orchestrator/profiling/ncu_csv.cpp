#include "orchestrator/profiling/ncu_csv.hpp"

#include <map>

#include "orchestrator/profiling/csv_table.hpp"
#include "orchestrator/profiling/time_totals.hpp"

namespace scalestudy::profiling {
namespace {

constexpr const char* kDurationMetric = "gpu__time_duration.sum";

Result<double> ns_per_unit(const CsvTable& table, const CsvCell& unit) {
  static const std::map<std::string, double> kScale = {
      {"nsecond", 1},   {"ns", 1},   {"usecond", 1e3}, {"us", 1e3},
      {"msecond", 1e6}, {"ms", 1e6}, {"second", 1e9},  {"s", 1e9}};
  auto found = kScale.find(unit.text);
  if (found == kScale.end()) {
    return Status::error(table.where(unit) + ": field 'Metric Unit': '" + unit.text +
                         "' is not a time unit");
  }
  return found->second;
}

Result<std::vector<KernelTime>> read_details(const CsvTable& table) {
  KernelTotals totals;
  for (const auto& row : table.rows) {
    const std::string metric = table.cell(row, "Metric Name").text;
    if (metric != "Duration" && metric != kDurationMetric) continue;
    auto scale = ns_per_unit(table, table.cell(row, "Metric Unit"));
    if (!scale) return scale.status();
    auto value = table.number(row, "Metric Value");
    if (!value) return value.status();
    totals.add(table.cell(row, "Kernel Name").text, static_cast<int64_t>(*value * *scale + 0.5));
  }
  return totals.sorted();
}

Result<std::vector<KernelTime>> read_raw(const CsvTable& table) {
  if (table.rows.empty()) return std::vector<KernelTime>{};
  const auto& units = table.rows.front();
  if (!table.cell(units, "ID").text.empty()) {
    return Status::error(table.where(table.cell(units, "ID")) +
                         ": expected the units record (empty 'ID') after the header");
  }
  CsvCell unit = table.cell(units, kDurationMetric);
  auto scale = ns_per_unit(table, unit);
  if (!scale) return scale.status();
  KernelTotals totals;
  for (size_t r = 1; r < table.rows.size(); ++r) {
    auto value = table.number(table.rows[r], kDurationMetric);
    if (!value) return value.status();
    totals.add(table.cell(table.rows[r], "Kernel Name").text,
               static_cast<int64_t>(*value * *scale + 0.5));
  }
  return totals.sorted();
}

}  // namespace

Result<std::vector<KernelTime>> read_ncu_csv(const std::string& path) {
  auto details =
      read_csv_table(path, {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"});
  if (details) return read_details(*details);
  auto raw = read_csv_table(path, {"ID", "Kernel Name", kDurationMetric});
  if (raw) return read_raw(*raw);
  return Status::error(path +
                       ":1:1: neither ncu layout: no header with 'Metric Name' and "
                       "'Metric Value' (details page) nor with '" +
                       std::string(kDurationMetric) + "' (raw page)");
}

}  // namespace scalestudy::profiling
