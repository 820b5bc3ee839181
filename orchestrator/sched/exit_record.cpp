#include "orchestrator/sched/exit_record.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace scalestudy::sched {
namespace {

// Decimal digits of `value` at `out`; returns the position after them. No allocation.
char* put_number(char* out, long long value) {
  if (value < 0) {
    *out++ = '-';
    value = -value;
  }
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  while (count > 0) *out++ = digits[--count];
  return out;
}

void write_record(const char* path, size_t processes, bool launcher, int wait_status) {
  char line[96];
  char* end = put_number(line, getpgid(0));
  *end++ = ' ';
  end = put_number(end, static_cast<long long>(processes));
  *end++ = ' ';
  *end++ = launcher ? '1' : '0';
  *end++ = ' ';
  end = put_number(end, wait_status);
  *end++ = '\n';
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, line, static_cast<size_t>(end - line));
  close(fd);
}

}  // namespace

std::string exit_record_path(const std::string& out_dir, size_t index) {
  return out_dir + "/local-exit." + std::to_string(index);
}

void exec_under_keeper(char* const argv[], char* const envp[], const char* record_path,
                       size_t processes, bool launcher) {
  sigset_t all;
  sigfillset(&all);
  sigset_t previous;
  sigprocmask(SIG_SETMASK, &all, &previous);
  const pid_t process = fork();
  if (process == 0) {
    // The program starts as from a shell: no signal blocked (the submitter blocks SIGINT
    // while it watches for Ctrl-C).
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(argv[0], argv, envp);
    const char* reason = strerrordesc_np(errno);
    for (const char* part :
         {"scalestudy: cannot execute ", static_cast<const char*>(argv[0]), ": ", reason, "\n"}) {
      (void)!write(STDERR_FILENO, part, std::strlen(part));
    }
    _exit(127);
  }
  if (process < 0) {
    // No keeper: the process runs as this one (its end unrecorded).
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    execve(argv[0], argv, envp);
    _exit(127);
  }
  int wait_status = 0;
  while (waitpid(process, &wait_status, 0) < 0 && errno == EINTR) {
  }
  write_record(record_path, processes, launcher, wait_status);
  if (WIFSIGNALED(wait_status)) {
    // End as the process did, without a core of this copy of scalestudy.
    const int signal_number = WTERMSIG(wait_status);
    const rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(signal_number, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal_number);
    raise(signal_number);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    _exit(128 + signal_number);
  }
  _exit(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 1);
}

std::optional<std::vector<RecordedExit>> read_exit_records(const std::string& out_dir,
                                                           pid_t group) {
  std::vector<RecordedExit> records;
  for (size_t index = 0;; ++index) {
    std::ifstream file(exit_record_path(out_dir, index));
    long long recorded_group = 0;
    size_t processes = 0;
    int launcher = 0;
    RecordedExit record;
    if (!(file >> recorded_group >> processes >> launcher >> record.wait_status) ||
        recorded_group != group) {
      return std::nullopt;
    }
    record.launcher = launcher == 1;
    records.push_back(record);
    if (records.size() >= processes) return records;
  }
}

}  // namespace scalestudy::sched
