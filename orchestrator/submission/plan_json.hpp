// `scalestudy plan --format json`: a study's plan as one JSON document (the study, every
// resolved run, its totals, a packed sweep's allocations), written as `dump(2)` of the whole
// document would print it, without building that document: its runs are converted and
// written one at a time (a 10,000-run plan is 15 MB of text).
#pragma once

#include <cstdio>

#include "orchestrator/study/study.hpp"
#include "orchestrator/submission/study_plan.hpp"

namespace scalestudy::submission {

void write_plan_json(std::FILE* stream, const Study& study, const PlanTotals& totals);

}  // namespace scalestudy::submission
