// InterruptWatch: Ctrl-C (SIGINT) as something to read, not a signal that kills the
// process where it stands. While one exists, SIGINT is blocked in the thread that made it
// and in every thread started after (so make it before any), and arrives on a signalfd
// that the local scheduler polls beside its ranks' exits: the first Ctrl-C stops the runs
// the command started and records them; the second leaves at once (docs/failures.md).
// Children must unblock SIGINT before exec (the local scheduler does). Not copyable.
#pragma once

#include <signal.h>

#include <memory>

#include "harness/core/status.hpp"

namespace scalestudy::common {

class InterruptWatch {
 public:
  static Result<std::unique_ptr<InterruptWatch>> open();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // Readable when a Ctrl-C is waiting to be taken.
  int fd() const { return fd_; }
  // The Ctrl-Cs that arrived since the last call (0 when none); never blocks.
  int take();
  // Every Ctrl-C taken so far.
  int taken() const { return taken_; }
  // Waits up to `seconds` for a Ctrl-C; true when one came (it is taken).
  bool wait_for(double seconds);

 private:
  InterruptWatch(int fd, const sigset_t& previous_mask) : fd_(fd), previous_mask_(previous_mask) {}
  int fd_;
  sigset_t previous_mask_;
  int taken_ = 0;
};

}  // namespace scalestudy::common
