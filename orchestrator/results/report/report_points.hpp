// A report's points while build_report assembles them: each ReportPoint with the runs
// behind it and the figures the baselines and the communication model need but the report
// does not show; the grouping of runs into points, and the point comparisons the scaling,
// sensitivity and projection steps share. Internal to build_report; pure functions.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/run_measurements.hpp"

namespace scalestudy::results {

struct PointWork {
  ReportPoint point;
  std::vector<const RunMeasurement*> measured;
  std::vector<const RunMeasurement*> failed;
  int config_order = 0;
  double comm_exposed_ms = 0;
  std::optional<double> gradient_bytes, bucket_cap_mb;
};

// A run whose job finished without success (a state of the study database's runs table).
bool finished_unsuccessfully(const std::string& run_state);

// Strong and weak studies: varied keys that take several values at one world size are
// the configuration; keys that follow the scale (batch, a scaled learning rate) are not.
// Sensitivity: every varied key but the scale's. Keys set by the repeat number are neither.
std::set<std::string> configuration_keys(const std::vector<RunMeasurement>& runs,
                                         const std::string& kind);

// One point per configuration and scale, by configuration (first seen first), then world
// size and nodes; with the medians over its measured repeats. The points refer to `runs`.
std::vector<PointWork> group_points(const std::vector<RunMeasurement>& runs,
                                    const std::set<std::string>& config_keys,
                                    std::optional<double> target_acc);

// Whether a point matches the selector; `scale_only` ignores configuration keys.
bool matches(const ReportPoint& point, const std::map<std::string, std::string>& selector,
             bool scale_only);

// "precision=bf16 bucket_cap_mb=25", or "default" for an empty configuration.
std::string config_label(const std::map<std::string, std::string>& config);

// "N=4" or "N=4 (precision=bf16)": a point in warnings.
std::string point_name(const ReportPoint& point);

// The point's memory figures over the baseline point's.
void set_memory_ratio(ReportPoint& point, const ReportPoint& base);

}  // namespace scalestudy::results
