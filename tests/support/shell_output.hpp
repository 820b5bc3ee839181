// Running a shell command line from a test and keeping what it printed.
#pragma once

#include <string>

namespace scalestudy::testing {

struct ShellOutput {
  int exit_code;     // -1 when the shell did not exit (a signal), or could not start
  std::string text;  // stdout; append 2>&1 to the command to keep stderr too
};

ShellOutput run_shell(const std::string& command);

// stdout and stderr together, in the order written.
ShellOutput run_shell_merged(const std::string& command);

}  // namespace scalestudy::testing
