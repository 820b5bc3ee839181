#include "orchestrator/results/report/report_placement.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/results/analysis/interference.hpp"

namespace scalestudy::results {
namespace {

struct Placement {
  std::string job_step;  // "123.4": a step of allocation 123 (packed); else a job's own id
  std::string node_list;
  std::optional<double> queued_s, started_s, ended_s;
};

// The scheduler's local time ("2026-11-26T04:55:57", sacct): only differences matter.
std::optional<double> scheduler_time(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return common::parse_utc_timestamp(text.back() == 'Z' ? text : text + "Z");
}

// Every run's placements, by run id, attempts in order.
Result<std::map<std::string, std::vector<Placement>>> load_placements(sqlite::Database& db) {
  std::map<std::string, std::vector<Placement>> by_run;
  auto present = db.query_value(
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'placements'");
  if (!present) return present.status();
  if (!*present || std::get<int64_t>(**present) == 0) return by_run;
  auto rows = db.query(
      "SELECT run_id, job_step, node_list, queued_at, started_at, ended_at FROM placements "
      "ORDER BY run_id, attempt");
  if (!rows) return rows.status();
  for (const auto& row : *rows) {
    by_run[sqlite::to_string(row[0])].push_back(
        {sqlite::to_string(row[1]), sqlite::to_string(row[2]),
         scheduler_time(sqlite::to_string(row[3])), scheduler_time(sqlite::to_string(row[4])),
         scheduler_time(sqlite::to_string(row[5]))});
  }
  return by_run;
}

void warn_about_node_sets(const std::vector<PointWork>& points,
                          const std::map<std::string, std::vector<Placement>>& by_run,
                          Report& report) {
  std::set<std::string> study_nodes;
  std::vector<std::pair<const PointWork*, std::string>> pinned;  // point, its one node set
  int largest = 0;
  for (const PointWork& work : points) largest = std::max(largest, work.point.nodes);
  for (const PointWork& work : points) {
    std::set<std::string> node_sets;
    for (const RunMeasurement* run : work.measured) {
      auto found = by_run.find(run->run_id);
      if (found == by_run.end() || found->second.back().node_list.empty()) continue;
      node_sets.insert(found->second.back().node_list);
    }
    study_nodes.insert(node_sets.begin(), node_sets.end());
    // A point as large as the study's largest has every node the sweep had: nowhere else.
    if (work.measured.size() >= 2 && node_sets.size() == 1 && work.point.nodes < largest) {
      pinned.emplace_back(&work, *node_sets.begin());
    }
  }
  if (study_nodes.size() < 2) return;  // one node set for everything: no point is favoured
  for (const auto& [work, nodes] : pinned) {
    report.warnings.push_back(point_name(work->point) + ": all " +
                              std::to_string(work->measured.size()) + " repeats ran on " + nodes +
                              " while other points ran elsewhere: a slow or fast node there "
                              "biases this point (allocation: packed rotates the nodes)");
  }
}

// Runs whose steps ran side by side in one packed allocation (disjoint nodes, one job):
// their last placements, step windows overlapping. They shared the job's network and file
// system, so the report names them as it names runs that shared a host.
void add_co_running(const std::vector<PointWork>& points,
                    const std::map<std::string, std::vector<Placement>>& by_run, Report& report) {
  struct Step {
    std::string run_id, name, nodes;
    double started_s, ended_s;
  };
  std::map<std::string, std::vector<Step>> by_allocation;
  for (const PointWork& work : points) {
    for (const RunMeasurement* run : work.measured) {
      auto found = by_run.find(run->run_id);
      if (found == by_run.end()) continue;
      const Placement& last = found->second.back();
      const size_t dot = last.job_step.find('.');
      if (dot == std::string::npos || !last.started_s || !last.ended_s) continue;
      by_allocation[last.job_step.substr(0, dot)].push_back(
          {run->run_id, point_name(work.point), last.node_list, *last.started_s, *last.ended_s});
    }
  }
  for (auto& [allocation, steps] : by_allocation) {
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
      return a.started_s != b.started_s ? a.started_s < b.started_s : a.run_id < b.run_id;
    });
    for (size_t i = 0; i < steps.size(); ++i) {
      for (size_t j = i + 1; j < steps.size() && steps[j].started_s < steps[i].ended_s; ++j) {
        const double overlap_s = std::min(steps[i].ended_s, steps[j].ended_s) - steps[j].started_s;
        if (overlap_s <= 0) continue;
        report.co_running.push_back({steps[i].run_id, steps[j].run_id, allocation, steps[i].nodes,
                                     steps[j].nodes, overlap_s});
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.0f", overlap_s);
        report.warnings.push_back("runs " + steps[i].run_id + " (" + steps[i].name + ") and " +
                                  steps[j].run_id + " (" + steps[j].name +
                                  ") ran side by side in allocation " + allocation + " for " +
                                  seconds + " s, on " + steps[i].nodes + " and " + steps[j].nodes +
                                  ": they shared the job's network and file system");
      }
    }
  }
}

}  // namespace

std::optional<TimeToResult> time_to_result(std::vector<PlacedInterval> intervals) {
  if (intervals.empty()) return std::nullopt;
  std::sort(
      intervals.begin(), intervals.end(),
      [](const PlacedInterval& a, const PlacedInterval& b) { return a.started_s < b.started_s; });
  TimeToResult result;
  double first_queued = intervals.front().queued_s, last_ended = intervals.front().ended_s;
  double covered_until = intervals.front().started_s;
  for (const PlacedInterval& interval : intervals) {
    first_queued = std::min(first_queued, interval.queued_s);
    last_ended = std::max(last_ended, interval.ended_s);
    const double from = std::max(covered_until, interval.started_s);
    if (interval.ended_s > from) result.run_s += interval.ended_s - from;
    covered_until = std::max(covered_until, interval.ended_s);
  }
  result.wall_s = std::max(0.0, last_ended - first_queued);
  result.queue_wait_s = std::max(0.0, result.wall_s - result.run_s);
  return result;
}

Status add_placement(sqlite::Database& study_db, const std::vector<PointWork>& points,
                     Report& report) {
  auto by_run = load_placements(study_db);
  if (!by_run) return by_run.status();
  std::vector<PlacedInterval> intervals;
  for (const auto& [run_id, attempts] : *by_run) {
    for (const Placement& placement : attempts) {
      if (!placement.started_s || !placement.ended_s) continue;
      intervals.push_back({placement.queued_s.value_or(*placement.started_s), *placement.started_s,
                           *placement.ended_s});
    }
  }
  report.time_to_result = time_to_result(std::move(intervals));
  warn_about_node_sets(points, *by_run, report);
  add_co_running(points, *by_run, report);
  return Status::ok();
}

}  // namespace scalestudy::results
