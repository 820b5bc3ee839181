// How plan, validate, submit and run print a study's workload-parameter check
// (submission/workload_param_check): its notes, then its errors.
#pragma once

#include "orchestrator/submission/workload_param_check.hpp"

namespace scalestudy::cli {

// Prints the notes to stderr ("scalestudy COMMAND: note: ...") and the errors to stderr;
// returns whether the study may go on.
bool report_workload_param_check(const char* command, const submission::WorkloadParamCheck& check);

}  // namespace scalestudy::cli
