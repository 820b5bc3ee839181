// Reads how a study runs and is judged: `repeats`, `max_runs`, `max_attempts`, `policy`
// (retries by failure class: retry_policy.hpp),
// `array_throttle`, `budget` and `report` (targets and thresholds; docs/study-database.md,
// "Report settings"). See studies/README.md.
#pragma once

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Reads those fields of the study `document` into `study` (repeats, max_runs and its
// location, and study.info's attempts, retry policy, throttle, budget and report settings).
void read_policy_section(const ConfigNode& document, StudyTemplate& study,
                         Diagnostics& diagnostics);

}  // namespace scalestudy
