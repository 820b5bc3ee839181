#include "workloads/launch/stack_dump.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace scalestudy::launch {
namespace {

bool executable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

// `name` found on PATH, or "".
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const std::string candidate = folder + "/" + name;
    if (executable(candidate)) return candidate;
  }
  return "";
}

// The NUL-separated words of /proc/<pid>/<file> (cmdline, environ).
std::vector<std::string> proc_words(pid_t pid, const char* file) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file, std::ios::binary);
  std::vector<std::string> words;
  for (std::string word; std::getline(in, word, '\0');) words.push_back(word);
  return words;
}

// py-spy beside the rank's Python as it was started: the folder of argv[0] when that is a
// path (a venv's bin/python), then the bin/ of its VIRTUAL_ENV (an activated venv whose
// python was found on PATH).
std::string beside_interpreter(pid_t pid) {
  const std::vector<std::string> argv = proc_words(pid, "cmdline");
  if (!argv.empty() && argv[0].find('/') != std::string::npos) {
    const std::string candidate =
        (std::filesystem::path(argv[0]).parent_path() / "py-spy").string();
    if (executable(candidate)) return candidate;
  }
  for (const std::string& variable : proc_words(pid, "environ")) {
    if (variable.rfind("VIRTUAL_ENV=", 0) != 0) continue;
    const std::string candidate = variable.substr(std::strlen("VIRTUAL_ENV=")) + "/bin/py-spy";
    if (executable(candidate)) return candidate;
  }
  return "";
}

bool is_python(pid_t pid) {
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
  return !error && exe.filename().string().rfind("python", 0) == 0;
}

}  // namespace

std::string find_py_spy(pid_t pid, const std::string& given) {
  if (executable(given)) return given;
  if (std::string found = on_path("py-spy"); !found.empty()) return found;
  return beside_interpreter(pid);
}

void dump_stacks(pid_t pid, const std::string& path, const std::string& py_spy_given) {
  std::vector<std::string> words;
  const std::string py_spy = is_python(pid) ? find_py_spy(pid, py_spy_given) : "";
  if (!py_spy.empty()) {
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
