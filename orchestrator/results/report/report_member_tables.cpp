#include "orchestrator/results/report/report_member_tables.hpp"

#include "orchestrator/results/report/report_cells.hpp"

namespace scalestudy::results {
namespace {

// The cells that say which point a group is: its configuration where the tables show
// one, its scale and nodes.
std::vector<std::string> group_headers(const Report& report) {
  std::vector<std::string> headers;
  if (shows_config(report)) headers.push_back("config");
  headers.insert(headers.end(), {scale_header(report), "nodes"});
  return headers;
}

std::vector<std::string> group_cells(const Report& report, const ReportPoint& point) {
  std::vector<std::string> cells;
  if (shows_config(report)) cells.push_back(point.config_label);
  cells.insert(cells.end(), {std::to_string(point.world_size), std::to_string(point.nodes)});
  return cells;
}

Member rank_member(int rank, const std::string& host) {
  return {{std::to_string(rank), host}, "r" + std::to_string(rank), {}};
}

std::function<std::string(double)> with_decimals(int decimals) {
  return [decimals](double value) { return fixed(value, decimals); };
}

}  // namespace

MemberTable rank_memory_members(const Report& report) {
  using Field = std::optional<double> RankMemory::*;
  const std::vector<std::pair<std::string, Field>> gpu_fields = {
      {"alloc peak", &RankMemory::gpu_peak_bytes},
      {"reserved peak", &RankMemory::gpu_reserved_peak_bytes},
      {"NVML peak", &RankMemory::nvml_peak_bytes},
      {"NVML avg", &RankMemory::nvml_avg_bytes}};
  std::vector<std::pair<std::string, Field>> fields = {{"RSS peak", &RankMemory::rss_peak_bytes},
                                                       {"RSS avg", &RankMemory::rss_avg_bytes}};
  std::vector<std::optional<double>> figures;
  bool gpu_memory = false;
  for (const auto& point : report.points) {
    for (const auto& rank : point.rank_memory) {
      for (const auto& [name, field] : gpu_fields) {
        figures.push_back(rank.*field);
        gpu_memory |= (rank.*field).has_value();
      }
      figures.push_back(rank.rss_peak_bytes);
    }
  }
  if (gpu_memory) fields.insert(fields.begin(), gpu_fields.begin(), gpu_fields.end());
  const MemoryUnit unit = memory_unit(figures);
  MemberTable table;
  table.title =
      "Memory per rank [" + unit.name + "] (peak: max over repeats; avg: mean over repeats)";
  table.noun = "ranks";
  table.group_headers = group_headers(report);
  table.name_headers = {"rank", "host"};
  for (const auto& [name, field] : fields) {
    table.figures.push_back({name, [unit](double bytes) { return in_unit(bytes, unit); }});
  }
  table.plotted_figure = gpu_memory ? 0 : fields.size() - 2;  // alloc peak, else RSS peak
  for (const auto& point : report.points) {
    if (point.rank_memory.empty()) continue;
    MemberGroup group{group_cells(report, point), {}};
    for (const RankMemory& memory : point.rank_memory) {
      Member member = rank_member(memory.rank, memory.host);
      for (const auto& [name, field] : fields) member.figures.push_back(memory.*field);
      group.members.push_back(std::move(member));
    }
    table.groups.push_back(std::move(group));
  }
  return table;
}

MemberTable rank_arrival_members(const Report& report) {
  MemberTable table;
  table.title =
      "Arrival at the gradient all-reduce per rank (late: after the step's median rank, "
      "median over steps)";
  table.noun = "ranks";
  table.group_headers = group_headers(report);
  table.name_headers = {"rank", "host"};
  table.figures = {{"late [ms]", with_decimals(2)}, {"last [% of steps]", with_decimals(0)}};
  table.plotted_figure = 0;
  for (const auto& point : report.points) {
    if (point.rank_arrivals.empty()) continue;
    MemberGroup group{group_cells(report, point), {}};
    for (const RankArrival& arrival : point.rank_arrivals) {
      Member member = rank_member(arrival.rank, arrival.host);
      member.figures = {arrival.late_median_ms, arrival.last_share * 100};
      group.members.push_back(std::move(member));
    }
    table.groups.push_back(std::move(group));
  }
  return table;
}

MemberTable host_members(const Report& report) {
  MemberTable table;
  table.title = "Hosts (stragglers across the study's runs)";
  table.noun = "hosts";
  table.name_headers = {"host"};
  table.figures = {{"runs", with_decimals(0)},
                   {"named in runs", with_decimals(0)},
                   {"last [% of steps]", with_decimals(0)},
                   {"wait median [ms]", magnitude},
                   {"late [ms]", with_decimals(2)}};
  table.plotted_figure = 4;
  if (report.straggler_hosts.empty()) return table;
  MemberGroup group;
  for (const HostStraggles& host : report.straggler_hosts) {
    Member member{{host.host}, host.host, {}};
    member.figures = {
        double(host.runs), double(host.runs_named),
        host.steps > 0 ? std::optional<double>(100.0 * host.steps_last / host.steps) : std::nullopt,
        host.wait_median_ms, host.late_median_ms};
    group.members.push_back(std::move(member));
  }
  table.groups.push_back(std::move(group));
  return table;
}

}  // namespace scalestudy::results
