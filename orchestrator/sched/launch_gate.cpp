#include "orchestrator/sched/launch_gate.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace scalestudy::sched {

Result<LaunchGate> LaunchGate::open() {
  int fds[2];
  // Close-on-exec: a released child's workload, and processes of later runs, never hold it.
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return Status::error("pipe: " + std::string(std::strerror(errno)));
  }
  return LaunchGate(fds[0], fds[1]);
}

LaunchGate::LaunchGate(LaunchGate&& other) noexcept
    : read_fd_(std::exchange(other.read_fd_, -1)), write_fd_(std::exchange(other.write_fd_, -1)) {}

LaunchGate::~LaunchGate() {
  if (read_fd_ >= 0) close(read_fd_);
  if (write_fd_ >= 0) close(write_fd_);
}

bool LaunchGate::wait_in_child() const {
  // Only the submitter may hold the write end, so its death reads as end of file.
  close(write_fd_);
  char go = 0;
  ssize_t got;
  do {
    got = read(read_fd_, &go, 1);
  } while (got < 0 && errno == EINTR);
  close(read_fd_);
  return got == 1;
}

void LaunchGate::release(int processes) {
  const std::string tokens(static_cast<size_t>(processes), 'g');
  size_t written = 0;
  while (written < tokens.size()) {
    ssize_t n = write(write_fd_, tokens.data() + written, tokens.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  close(write_fd_);
  write_fd_ = -1;
}

}  // namespace scalestudy::sched
