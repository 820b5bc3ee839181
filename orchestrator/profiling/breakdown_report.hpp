// The profile breakdown as text, for `scalestudy profile-report` (and the results report's
// --profile section): per profiled run and source, GPU time per kernel category with its
// share and a bar, then the NVTX ranges with count, total and mean. Times are per rank
// (summed over ranks, divided by their number). Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/profiling/profile_store.hpp"

namespace scalestudy::profiling {

// `bar_width`: characters of the longest bar (a 100% share).
std::string render_profile_breakdown(const std::vector<StoredProfile>& profiles,
                                     int bar_width = 40);

}  // namespace scalestudy::profiling
