// The sensitivity step of build_report: each configuration against the baseline
// configuration at its scale (throughput and accuracy change, memory ratios), and the
// verdict on the best configuration at the baseline's scale. Internal to build_report.
#pragma once

#include <vector>

#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

// The baseline is the first measured point matching report.baseline, else the first at
// the smallest scale. Sets report.sensitivity when any other configuration was compared.
void apply_sensitivity(std::vector<PointWork>& points, Report& report);

}  // namespace scalestudy::results
