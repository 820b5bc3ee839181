// JSON paths as metrics name a number in a JSON document or a JSON line:
// `log_history[-1].train_samples_per_second`, `train.loss`, `[0].value`. Keys are joined by
// '.', list items picked by [INDEX], a negative index counting from the end. Pure
// functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

struct JsonPathStep {
  std::string key;  // an object's member; empty for a list item
  long long index = 0;
};

// An error saying what is wrong and where in `text` (0-based character).
Result<std::vector<JsonPathStep>> parse_json_path(std::string_view text);

// The value at `path` in `document`; nullptr when a step finds nothing.
const nlohmann::json* follow_json_path(const nlohmann::json& document,
                                       const std::vector<JsonPathStep>& path);

}  // namespace scalestudy
