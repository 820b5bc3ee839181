// expand_study(): a validated StudyTemplate into its runs — scale points × matrix × zip
// groups × repeats, batch math, ${} substitution, exclude/where filters, run ids, duplicate
// and baseline checks, and the `varied` parameters. Internal to orchestrator/study.
#pragma once

#include "orchestrator/study/study.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// Errors go to `diagnostics`; the returned study is meaningful only when there are none.
Study expand_study(StudyTemplate study_template, Diagnostics& diagnostics);

}  // namespace scalestudy
