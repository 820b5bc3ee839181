// build_report's placement step: where and when each run ran, from the study database's
// `placements` table (what the scheduler said: job step, nodes, queued, started, ended).
// Gives the study's time to result split into queue wait and run time, and warns when the
// repeats of a point all ran on one node set while other points ran elsewhere (a slow or
// fast node would then bias that point against the others); not for points of the study's
// largest node count, which had no other nodes to go to; and names the runs whose steps ran
// side by side in one packed allocation (Report::co_running). A database without the table,
// or runs the scheduler gave no placement (the local executor), add nothing. Internal to
// build_report.
#pragma once

#include <optional>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

Status add_placement(sqlite::Database& study_db, const std::vector<PointWork>& points,
                     Report& report);

// Time to result over [queued, started, ended] intervals (seconds since any epoch): from
// the first queued to the last ended; run time is the union of the ran intervals, queue
// wait the rest (no run of the study running). Nothing without an interval.
struct PlacedInterval {
  double queued_s = 0, started_s = 0, ended_s = 0;
};
std::optional<TimeToResult> time_to_result(std::vector<PlacedInterval> intervals);

}  // namespace scalestudy::results
