// The py-spy that scalestudy-launch's hang watchdog should dump Python ranks with, as the
// submitting side knows it: one on the submitter's PATH (an activated venv), else the one
// scripts/python-venv.sh installs (its venv: $SCALESTUDY_PYTHON_VENV, as for the script,
// else the checkout's .deps/python-venv). Passed to the launcher as --py-spy, so that jobs
// whose environment lacks it (slurmrestd's, a node's login PATH) still take Python stacks;
// the launcher falls back to its own search (workloads/launch/stack_dump.hpp).
#pragma once

#include <string>

namespace scalestudy::sched {

// The absolute path of an executable py-spy, or "" when none is known.
std::string submitter_py_spy();

}  // namespace scalestudy::sched
