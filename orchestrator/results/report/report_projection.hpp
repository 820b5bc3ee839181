// The projection step of build_report (`--project`): for each series (configuration) of a
// strong or weak study, the model of projection.hpp anchored at its largest measured
// point, over the all-reduce curves nearest the largest target, with the warnings a
// projection needs (no curve, no curve across hosts). Internal to build_report.
#pragma once

#include <vector>

#include "orchestrator/results/analysis/comm_model.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

// Appends to report.projections, or to report.warnings why a series is not projected.
// Runs after the scaling step, whose baselines the model's efficiency is relative to.
void add_projections(const std::vector<PointWork>& points,
                     const std::vector<BandwidthCurve>& curves, const std::vector<int>& targets,
                     Report& report);

}  // namespace scalestudy::results
