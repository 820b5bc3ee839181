#include "orchestrator/results/analysis/significance_json.hpp"

namespace scalestudy::results {

void add_mean_comparison(nlohmann::ordered_json& object, const MeanComparison& stats) {
  using Json = nlohmann::ordered_json;
  auto optional = [](const auto& value) { return value ? Json(*value) : Json(nullptr); };
  object["ratio"] = stats.ratio;
  object["change_pct"] = stats.change_pct;
  object["ratio_ci95"] = stats.ratio_ci95_low
                             ? Json::array({*stats.ratio_ci95_low, *stats.ratio_ci95_high})
                             : Json(nullptr);
  object["welch_t"] = optional(stats.welch_t);
  object["welch_df"] = optional(stats.welch_df);
  object["significant"] = optional(stats.significant);
}

}  // namespace scalestudy::results
