#include "tests/support/shell_output.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace scalestudy::testing {

ShellOutput run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed: " + std::string(std::strerror(errno))};
  std::string text;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

ShellOutput run_shell_merged(const std::string& command) {
  return run_shell(command + " 2>&1");
}

}  // namespace scalestudy::testing
