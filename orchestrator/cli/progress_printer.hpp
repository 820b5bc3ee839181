// How `wait` and `run` show progress while they poll: redrawn in place on a terminal,
// one line per change otherwise (CI logs and pipes stay readable).
#pragma once

#include <functional>

#include "orchestrator/campaign/wait.hpp"

namespace scalestudy::cli {

std::function<void(const campaign::StudyProgress&)> make_progress_printer();

}  // namespace scalestudy::cli
