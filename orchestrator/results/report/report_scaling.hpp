// The scaling step of build_report for strong and weak studies: each series'
// (configuration's) baseline point, speedup and efficiency against it, memory ratios, and
// the communication model's prediction from the nearest measured all-reduce curve.
// Internal to build_report; pure functions.
#pragma once

#include <vector>

#include "orchestrator/results/analysis/comm_model.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

// The baseline of a series is its first measured point matching report.baseline on scale,
// else its first measured point. Marks it and fills the other points' comparisons.
void apply_scaling(std::vector<PointWork>& points, const Report& report,
                   const std::vector<BandwidthCurve>& curves);

}  // namespace scalestudy::results
