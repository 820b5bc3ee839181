// How a study's progress is shown by `status`, `wait` and `submit`: a table (run id,
// varied parameters, state, attempts, failure class, job id, reason), the failed attempts
// with their class, nodes and evidence, the nodes they failed on (docs/failures.md), a
// done/total progress bar line, and the same as JSON. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/campaign/wait.hpp"

namespace scalestudy::campaign {

// "[##########----------] 3/6 done · 1 failed · 2 running"
std::string progress_line(const StudyProgress& progress, int bar_width = 30);

// One line per run; exhausted runs say so ("TIMEOUT after 2 attempts: ...").
std::string status_table(const StudyProgress& progress);
// Every failed attempt: run, attempt, state, class, nodes, evidence; "" when none failed.
std::string failures_table(const StudyProgress& progress);
// Each node failed attempts ran on, its failures by class (here and in the other studies of
// the results folder), flagged ones said; "" for none.
std::string nodes_table(const StudyProgress& progress);

nlohmann::json status_json(const std::string& study_name, const StudyProgress& progress);

}  // namespace scalestudy::campaign
