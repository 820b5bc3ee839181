// A RunSpec as JSON, for the study database's spec_json column (what exactly ran, readable
// by `sqlite3` and the results module without C++). Pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::campaign {

nlohmann::json run_spec_to_json(const RunSpec& spec);

}  // namespace scalestudy::campaign
