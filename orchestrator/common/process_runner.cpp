#include "orchestrator/common/process_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "orchestrator/common/fork_signals.hpp"

extern char** environ;

namespace scalestudy::common {
namespace {

// KEY=VALUE strings of the current environment with the overrides applied.
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text(*entry);
    std::string key = text.substr(0, text.find('='));
    if (overrides.count(key) == 0) entries.push_back(std::move(text));
  }
  for (const auto& [key, value] : overrides) entries.push_back(key + "=" + value);
  return entries;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

void close_pair(int fds[2]) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

}  // namespace

std::string describe_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    line += arg.find_first_of(" \t'\"") == std::string::npos ? arg : "'" + arg + "'";
  }
  return line;
}

std::optional<std::string> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    struct stat info {};
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

Status command_error(const std::vector<std::string>& argv, const ProcessResult& result) {
  std::string how = result.timed_out     ? "timed out"
                    : result.signal != 0 ? "was killed by signal " + std::to_string(result.signal)
                                         : "exited with code " + std::to_string(result.exit_code);
  std::string detail = result.stderr_text.empty() ? result.stdout_text : result.stderr_text;
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
  return Status::error("`" + describe_command(argv) + "` " + how +
                       (detail.empty() ? "" : ": " + detail));
}

Result<ProcessResult> run_process(const ProcessRequest& request) {
  if (request.argv.empty()) return Status::error("run_process: empty argv");
  std::string program = request.argv[0];
  if (program.find('/') == std::string::npos) {
    auto found = find_on_path(program);
    if (!found) return Status::error("`" + program + "` not found on PATH");
    program = *found;
  }
  std::vector<std::string> argv_storage = request.argv;
  std::vector<std::string> env_storage = merged_environment(request.env_overrides);
  std::vector<char*> argv = c_strings(argv_storage);
  std::vector<char*> envp = c_strings(env_storage);

  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    close_pair(out_pipe);
    close_pair(err_pipe);
    return Status::error("pipe: " + std::string(std::strerror(errno)));
  }
  ForkSignalGuard signals;
  pid_t pid = fork();
  if (pid < 0) {
    close_pair(out_pipe);
    close_pair(err_pipe);
    return Status::error("fork: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    signals.prepare_child();
    // Own process group, so a timeout kills whatever the command started too.
    setpgid(0, 0);
    int null_input = open("/dev/null", O_RDONLY);
    if (null_input >= 0) dup2(null_input, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    execve(program.c_str(), argv.data(), envp.data());
    const char* message = "exec failed\n";
    (void)!write(STDERR_FILENO, message, std::strlen(message));
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);

  ProcessResult result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(request.timeout_ms);
  struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
  int open_streams = 2;
  char buffer[8192];
  while (open_streams > 0) {
    auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       deadline - std::chrono::steady_clock::now())
                       .count();
    if (left_ms <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(left_ms));
    if (ready < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t count = read(fds[i].fd, buffer, sizeof(buffer));
      if (count > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(count));
      } else if (count == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
      }
    }
  }
  for (auto& entry : fds) {
    if (entry.fd >= 0) close(entry.fd);
  }
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wait_status) && !result.timed_out) result.exit_code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) result.signal = WTERMSIG(wait_status);
  return result;
}

}  // namespace scalestudy::common
