#include "workloads/launch/child_processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "harness/core/exit_codes.hpp"
#include "workloads/launch/progress_watch.hpp"
#include "workloads/launch/stack_dump.hpp"

namespace scalestudy::launch {
namespace {

using Clock = std::chrono::steady_clock;

pid_t spawn(const ChildSpec& child, const sigset_t& original_mask) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  sigprocmask(SIG_SETMASK, &original_mask, nullptr);
  for (const auto& [name, value] : child.env) setenv(name.c_str(), value.c_str(), 1);
  if (!child.log_path.empty()) {
    int log_fd = open(child.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      std::fprintf(stderr, "scalestudy-launch: cannot open %s: %s\n", child.log_path.c_str(),
                   std::strerror(errno));
      _exit(127);
    }
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
  }
  std::vector<char*> argv;
  for (const std::string& argument : child.argv)
    argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "scalestudy-launch: cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

// The first failure, named in the launcher's log: its exit code alone cannot say which rank.
void report_failure(size_t local_rank, pid_t pid, int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    std::fprintf(stderr, "scalestudy-launch: local rank %zu (pid %d) killed by signal %d (%s)\n",
                 local_rank, static_cast<int>(pid), WTERMSIG(wait_status),
                 strsignal(WTERMSIG(wait_status)));
  } else {
    std::fprintf(stderr, "scalestudy-launch: local rank %zu (pid %d) exited with code %d\n",
                 local_rank, static_cast<int>(pid), exit_code_of(wait_status));
  }
}

}  // namespace

Result<int> run_children(const std::vector<ChildSpec>& children, std::chrono::milliseconds grace,
                         const HangWatch& hang) {
  sigset_t watched, original_mask;
  sigemptyset(&watched);
  for (int signal_number : {SIGTERM, SIGINT, SIGCHLD}) sigaddset(&watched, signal_number);
  sigprocmask(SIG_BLOCK, &watched, &original_mask);

  std::vector<pid_t> running;
  std::map<pid_t, size_t> local_rank_of;
  for (const ChildSpec& child : children) {
    pid_t pid = spawn(child, original_mask);
    if (pid < 0) {
      for (pid_t started : running) kill(started, SIGTERM);
      return Status::error(std::string("fork failed: ") + std::strerror(errno));
    }
    local_rank_of[pid] = running.size();
    running.push_back(pid);
  }

  std::optional<int> first_failure;
  std::optional<Clock::time_point> failed_at;
  std::vector<std::string> logs;
  for (const ChildSpec& child : children) {
    if (!child.log_path.empty()) logs.push_back(child.log_path);
  }
  ProgressWatch progress(logs, hang.rank_dir);
  progress.look(Clock::now());
  Clock::time_point last_progress = Clock::now();
  size_t checkpointed = 0;  // ranks that stopped on request with a checkpoint to resume from
  int escalation = 0;       // 0: waiting, 1: SIGTERM sent, 2: SIGKILL sent
  auto signal_all = [&](int signal_number) {
    for (pid_t pid : running) kill(pid, signal_number);
  };
  const timespec poll_interval{0, 100 * 1000 * 1000};
  while (!running.empty()) {
    siginfo_t info{};
    int received = sigtimedwait(&watched, &info, &poll_interval);
    if (hang.on && !failed_at) {
      const auto limit = hang.after.count() > 0 ? hang.after : progress.default_limit();
      if (progress.look(Clock::now())) {
        last_progress = Clock::now();
      } else if (Clock::now() - last_progress > limit) {
        std::error_code ignored;
        std::filesystem::create_directories(hang.stacks_dir, ignored);
        for (pid_t pid : running) {
          const ChildSpec& child = children[local_rank_of[pid]];
          auto rank = child.env.find("RANK");
          const std::string name =
              rank != child.env.end() ? rank->second : std::to_string(local_rank_of[pid]);
          dump_stacks(pid, hang.stacks_dir + "/rank" + name + ".txt", hang.py_spy);
        }
        std::fprintf(stderr,
                     "scalestudy-launch: no progress for %lld s (no rank's log or database "
                     "changed): stacks of every rank in %s; stopping the run\n",
                     static_cast<long long>(limit.count() / 1000), hang.stacks_dir.c_str());
        first_failure = kHangExit;
        failed_at = Clock::now() - grace;  // no grace: SIGTERM now, SIGKILL after one grace
      }
    }
    if (received == SIGTERM || received == SIGINT) {
      signal_all(received);
      if (!failed_at) failed_at = Clock::now();
      if (!first_failure) first_failure = 128 + received;
    }
    std::vector<pid_t> still_running;
    for (pid_t pid : running) {
      int wait_status = 0;
      pid_t reaped = waitpid(pid, &wait_status, WNOHANG);
      if (reaped == 0) {
        still_running.push_back(pid);
        continue;
      }
      int code = reaped < 0 ? 1 : exit_code_of(wait_status);
      if (code == exit_codes::kCheckpointed) {
        ++checkpointed;
      } else if (code != 0 && !first_failure) {
        if (reaped > 0) report_failure(local_rank_of[pid], pid, wait_status);
        first_failure = code;
        failed_at = Clock::now();
      }
    }
    running = std::move(still_running);
    if (failed_at && !running.empty()) {
      auto waited = Clock::now() - *failed_at;
      if (escalation == 0 && waited > grace) {
        signal_all(SIGTERM);
        escalation = 1;
      } else if (escalation == 1 && waited > 2 * grace) {
        signal_all(SIGKILL);
        escalation = 2;
      }
    }
  }
  sigprocmask(SIG_SETMASK, &original_mask, nullptr);
  // Every rank checkpointed (a forwarded SIGTERM, say): the run resumes, it did not fail.
  if (checkpointed == children.size()) return exit_codes::kCheckpointed;
  return first_failure.value_or(checkpointed > 0 ? exit_codes::kCheckpointed : 0);
}

}  // namespace scalestudy::launch
