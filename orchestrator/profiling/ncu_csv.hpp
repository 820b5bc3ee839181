// Reader of Nsight Compute CSV output, in either of its layouts:
//   details (`ncu --csv`, `ncu --import R.ncu-rep --csv [--page details]`): one record per
//     metric and kernel launch — "ID","Process ID",...,"Kernel Name",...,"Section Name",
//     "Metric Name","Metric Unit","Metric Value"; a launch's time is its "Duration" metric
//     (SpeedOfLight section) or "gpu__time_duration.sum";
//   raw (`--page raw`): one record per launch with a column per metric, the first record
//     after the header holding the units; a launch's time is "gpu__time_duration.sum".
// Units nsecond/usecond/msecond/second (or ns/us/ms/s) are converted to nanoseconds. The
// result sums launches per kernel name (ncu replays kernels one by one, so these are
// isolated kernel times, not timeline shares). Pure apart from reading the file.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/profiling/profile_data.hpp"

namespace scalestudy::profiling {

Result<std::vector<KernelTime>> read_ncu_csv(const std::string& path);

}  // namespace scalestudy::profiling
