// The JSON fields of a comparison of two sets of repeats (significance.hpp), as the report's
// systems side by side and `compare` both write them. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/significance.hpp"

namespace scalestudy::results {

// Adds "ratio", "change_pct", "ratio_ci95" ([low, high] or null), "welch_t", "welch_df"
// and "significant" (each null when not formed) to `object`, in that order.
void add_mean_comparison(nlohmann::ordered_json& object, const MeanComparison& stats);

}  // namespace scalestudy::results
