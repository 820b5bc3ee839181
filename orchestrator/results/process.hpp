// Runs a program as a child process from an argument vector (no shell, no quoting
// issues), with stdout and stderr sent to a file, and waits for it. Used for gnuplot.
// Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::results {

struct ProcessResult {
  bool found = true;  // false: the program is not on PATH (nothing ran)
  int exit_code = 0;  // -1 when killed by a signal
};

// argv[0] is looked up on PATH. An error only for a failure to start other than
// "not found".
Result<ProcessResult> run_process(const std::vector<std::string>& argv,
                                  const std::string& output_path);

}  // namespace scalestudy::results
