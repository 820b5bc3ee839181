#include "orchestrator/results/report/report_systems.hpp"

#include <algorithm>

#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {
namespace {

std::map<std::string, std::string> without_system(std::map<std::string, std::string> config) {
  config.erase(kSystemKey);
  return config;
}

// The same configuration (but the system) at the same scale.
bool same_point(const ReportPoint& a, const ReportPoint& b) {
  return a.world_size == b.world_size && a.nodes == b.nodes &&
         without_system(a.config) == without_system(b.config);
}

std::optional<double> time_to_target(const ReportPoint& point) {
  return point.to_target ? point.to_target->time_s : std::nullopt;
}

}  // namespace

std::string system_of(const ReportPoint& point, const Report& report) {
  auto found = point.config.find(kSystemKey);
  if (found != point.config.end()) return found->second;
  return report.systems.size() == 1 ? report.systems.front() : std::string();
}

std::vector<std::string> report_systems(const Report& report) {
  std::vector<std::string> systems = report.systems;
  for (const ReportPoint& point : report.points) {
    const std::string system = system_of(point, report);
    if (!system.empty() && std::find(systems.begin(), systems.end(), system) == systems.end()) {
      systems.push_back(system);
    }
  }
  return systems;
}

Report report_on_system(const Report& report, const std::string& system) {
  Report part = report;
  part.points.clear();
  part.systems = {system};
  part.systems_side_by_side.clear();
  for (const ReportPoint& point : report.points) {
    if (system_of(point, report) != system) continue;
    ReportPoint kept = point;
    kept.config = without_system(point.config);
    kept.config_label = config_label(kept.config);
    part.points.push_back(std::move(kept));
  }
  return part;
}

std::vector<SystemsPoint> compare_systems(const Report& report) {
  const std::vector<std::string> systems = report_systems(report);
  std::vector<SystemsPoint> compared;
  if (systems.size() < 2) return compared;
  const std::string& reference = systems.front();
  for (size_t other = 1; other < systems.size(); ++other) {
    for (const ReportPoint& base : report.points) {
      if (system_of(base, report) != reference || base.run_ids.empty()) continue;
      auto match = std::find_if(report.points.begin(), report.points.end(), [&](const auto& p) {
        return system_of(p, report) == systems[other] && same_point(p, base) && !p.run_ids.empty();
      });
      if (match == report.points.end()) continue;
      SystemsPoint point;
      point.config_label = config_label(without_system(base.config));
      point.world_size = base.world_size;
      point.nodes = base.nodes;
      point.reference = reference;
      point.system = systems[other];
      point.throughput_reference = base.throughput_samples_per_s;
      point.throughput_system = match->throughput_samples_per_s;
      point.comparison =
          compare_means(base.throughput_samples_per_s, match->throughput_samples_per_s);
      point.efficiency_reference = base.efficiency;
      point.efficiency_system = match->efficiency;
      point.time_to_target_reference_s = time_to_target(base);
      point.time_to_target_system_s = time_to_target(*match);
      compared.push_back(std::move(point));
    }
  }
  return compared;
}

}  // namespace scalestudy::results
