// The time-to-accuracy step of build_report for strong, weak and custom studies: per point,
// the recorded time to the study's target (median over repeats), speedup and efficiency to
// target against the series' baseline point (the one apply_scaling marked), and whether its
// validation accuracy after the same number of epochs is worse than the baseline's beyond
// the repeats' noise. Throughput efficiency says how fast samples go through; this says how
// fast the model gets good (large global batches may need more epochs). Internal to
// build_report; pure functions.
#pragma once

#include <vector>

#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

// Fills each point's to_target and accuracy_vs_baseline; a warning per point that is worse
// than its baseline, or whose runs never reached their target.
void apply_time_to_target(std::vector<PointWork>& points, Report& report);

}  // namespace scalestudy::results
