#include "workloads/launch/stack_dump.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>
#include <vector>

namespace scalestudy::launch {
namespace {

// `name` found on PATH, or "".
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const std::string candidate = folder + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool is_python(pid_t pid) {
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
  return !error && exe.filename().string().rfind("python", 0) == 0;
}

}  // namespace

void dump_stacks(pid_t pid, const std::string& path) {
  const std::string py_spy = on_path("py-spy");
  std::vector<std::string> words;
  if (!py_spy.empty() && is_python(pid)) {
    words = {py_spy, "dump", "--pid", std::to_string(pid)};
  } else {
    words = {"gdb", "-batch", "-p", std::to_string(pid), "-ex", "thread apply all bt"};
  }
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t tool = fork();
  if (tool == 0) {
    const int out = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out >= 0) {
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  if (tool < 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(tool, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(tool, SIGKILL);
      waitpid(tool, nullptr, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace scalestudy::launch
