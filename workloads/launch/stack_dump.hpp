// A running process's stacks, written to a file for the run's folder: `py-spy dump` for a
// Python process when a py-spy is found (find_py_spy; docs/failures.md), else `gdb -batch`
// with every thread's backtrace. What the hang watchdog leaves before it stops a run that made no
// progress. Forks and waits; call from the launcher's single thread.
#pragma once

#include <sys/types.h>

#include <string>

namespace scalestudy::launch {

// The py-spy for process `pid`, or "": `given` (the launcher's --py-spy, which the
// orchestrator passes when it knows one) when executable, else py-spy on PATH, else beside
// the process's Python as started (the folder of argv[0] when a path, the bin/ of its
// VIRTUAL_ENV).
std::string find_py_spy(pid_t pid, const std::string& given);

// Writes the stacks of `pid` to `path` (the tool's own output, errors included); gives the
// tool at most 60 s. `py_spy_given` as for find_py_spy.
void dump_stacks(pid_t pid, const std::string& path, const std::string& py_spy_given);

}  // namespace scalestudy::launch
