#include "orchestrator/sched/child_exit.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <thread>

namespace scalestudy::sched {

ChildExit ChildExit::watch(pid_t pid) {
  // The raw system call: glibc wraps pidfd_open only from 2.36. The descriptor is
  // close-on-exec, so ranks started later do not inherit it.
  const long fd = syscall(SYS_pidfd_open, pid, 0);
  return ChildExit(fd < 0 ? -1 : static_cast<int>(fd));
}

ChildExit::ChildExit(ChildExit&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

ChildExit& ChildExit::operator=(ChildExit&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

ChildExit::~ChildExit() {
  if (fd_ >= 0) close(fd_);
}

void wait_for_child_exit(const std::vector<const ChildExit*>& exits,
                         std::optional<std::chrono::steady_clock::time_point> wake_at,
                         std::chrono::milliseconds fallback_interval, int also_fd) {
  using std::chrono::milliseconds;
  std::vector<pollfd> descriptors;
  bool all_watched = true;
  for (const ChildExit* exit : exits) {
    all_watched = all_watched && exit->watching();
    if (exit->watching()) descriptors.push_back({exit->fd(), POLLIN, 0});
  }
  if (also_fd >= 0) descriptors.push_back({also_fd, POLLIN, 0});
  std::optional<milliseconds> timeout;
  if (wake_at) {
    // Rounded up: waking before the timer is due would only spin.
    auto left = std::chrono::ceil<milliseconds>(*wake_at - std::chrono::steady_clock::now());
    timeout = std::clamp(left, milliseconds(0), milliseconds(INT_MAX));
  }
  if (!all_watched) timeout = std::min(timeout.value_or(fallback_interval), fallback_interval);
  const int ready = poll(descriptors.data(), descriptors.size(),
                         timeout ? static_cast<int>(timeout->count()) : -1);
  // A poll that keeps failing (not a signal) must not turn the caller's loop into a spin.
  if (ready < 0 && errno != EINTR) std::this_thread::sleep_for(fallback_interval);
}

}  // namespace scalestudy::sched
