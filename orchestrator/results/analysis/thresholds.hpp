// The study's pass/fail thresholds (`report.thresholds` in the YAML): a point misses the
// efficiency threshold when its scaling efficiency is below `efficiency_pct`. Misses are
// marked on the points (every report format shows them) and listed as warnings;
// `report --check` fails when any point misses. Pure functions; thread-safe.
#pragma once

#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

// Sets ReportPoint::below_efficiency_threshold and adds one warning per miss.
void mark_threshold_misses(Report& report);

// Points marked by mark_threshold_misses.
int count_threshold_misses(const Report& report);

}  // namespace scalestudy::results
