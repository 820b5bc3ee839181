// Test helper: runs the workload binaries as real child processes (posix_spawn, safe after
// LibTorch started its threads), with extra environment variables, output captured to a
// file, and a wall-clock bound. Header-only; used from one test thread.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace scalestudy::testing {

inline std::string binary(const std::string& name) {
  const char* dir = std::getenv("SCALESTUDY_BINARY_DIR");
  return std::string(dir ? dir : ".") + "/bin/" + name;
}

// A fresh, empty folder under the system temp dir.
inline std::string fresh_dir(const std::string& name) {
  auto path = std::filesystem::temp_directory_path() /
              ("scalestudy-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path.string();
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// How often `part` occurs in `text` (a captured output's "decoded" lines, say).
inline size_t count_occurrences(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               std::string output_path)
      : output_path_(std::move(output_path)) {
    std::map<std::string, std::string> merged;
    for (char** entry = environ; *entry; ++entry) {
      std::string text(*entry);
      size_t equals = text.find('=');
      if (equals != std::string::npos) merged[text.substr(0, equals)] = text.substr(equals + 1);
    }
    // Children must not inherit a launcher's rank from the test's own environment.
    for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                             "MASTER_PORT", "SLURM_PROCID", "SLURM_JOB_ID"}) {
      merged.erase(name);
    }
    for (const auto& [name, value] : env) merged[name] = value;
    std::vector<std::string> env_text;
    for (const auto& [name, value] : merged) env_text.push_back(name + "=" + value);
    std::vector<char*> envp, args;
    for (std::string& entry : env_text) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (std::string& argument : argv_copy) args.push_back(argument.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ChildProcess() {
    if (running()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  bool started() const { return pid_ > 0; }
  bool running() const { return pid_ > 0 && !exit_code_; }
  pid_t pid() const { return pid_; }
  void signal(int signal_number) const { kill(pid_, signal_number); }

  // The exit code (128 + signal when killed), or -1 when still running after timeout_s
  // (the child is then killed).
  int wait(double timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!exit_code_) {
      int status = 0;
      pid_t reaped = waitpid(pid_, &status, WNOHANG);
      if (reaped == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        exit_code_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return *exit_code_;
  }
  std::string output() const { return read_text(output_path_); }

 private:
  std::string output_path_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

struct Finished {
  int exit_code = 0;
  std::string output;
};

inline Finished run_to_end(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env,
                           const std::string& output_path, double timeout_s) {
  ChildProcess child(argv, env, output_path);
  int code = child.started() ? child.wait(timeout_s) : 127;
  return Finished{code, child.output()};
}

}  // namespace scalestudy::testing
