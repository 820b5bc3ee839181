// A running process's stacks, written to a file for the run's folder: `py-spy dump` for a
// Python process when py-spy is on PATH (docs/failures.md), else `gdb -batch` with every
// thread's backtrace. What the hang watchdog leaves before it stops a run that made no
// progress. Forks and waits; call from the launcher's single thread.
#pragma once

#include <sys/types.h>

#include <string>

namespace scalestudy::launch {

// Writes the stacks of `pid` to `path` (the tool's own output, errors included); gives the
// tool at most 60 s.
void dump_stacks(pid_t pid, const std::string& path);

}  // namespace scalestudy::launch
