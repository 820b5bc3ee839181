// ChildExit: a descriptor that becomes readable once one child process has exited (a
// pidfd), so the local backend sleeps until a rank ends or a timer is due instead of
// waking on a fixed interval. Where the kernel has no pidfd_open (before Linux 5.3) or
// descriptors run out, the handle is empty and wait_for_child_exit wakes on
// `fallback_interval` as before. Move-only; used by one thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <vector>

namespace scalestudy::sched {

class ChildExit {
 public:
  ChildExit() = default;
  // Call before `pid` is reaped: until then its pid cannot name another process.
  static ChildExit watch(pid_t pid);
  ChildExit(ChildExit&& other) noexcept;
  ChildExit& operator=(ChildExit&& other) noexcept;
  ChildExit(const ChildExit&) = delete;
  ChildExit& operator=(const ChildExit&) = delete;
  ~ChildExit();

  bool watching() const { return fd_ >= 0; }
  int fd() const { return fd_; }

 private:
  explicit ChildExit(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Returns once a child behind one of `exits` has exited, at `wake_at`, or, when one of
// them is empty, after at most `fallback_interval`; whichever comes first; or once `also_fd`
// (a Ctrl-C's signalfd; -1: none) is readable. A signal may end the wait early: callers
// re-check their children anyway.
void wait_for_child_exit(const std::vector<const ChildExit*>& exits,
                         std::optional<std::chrono::steady_clock::time_point> wake_at,
                         std::chrono::milliseconds fallback_interval, int also_fd = -1);

}  // namespace scalestudy::sched
