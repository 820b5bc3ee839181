// LaunchGate: holds a run's freshly forked processes before exec until the submitter has
// durably recorded the run (its job id, which names the process group), so a run is never
// executing without a record of it: if recording fails, or the submitter dies first, the
// processes exit without ever starting the workload. One pipe; the children block reading
// it. Used by one thread; move-only.
#pragma once

#include "harness/core/status.hpp"

namespace scalestudy::sched {

class LaunchGate {
 public:
  static Result<LaunchGate> open();
  LaunchGate(LaunchGate&& other) noexcept;
  LaunchGate& operator=(LaunchGate&&) = delete;
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;
  ~LaunchGate();  // closes without releasing: held children exit

  // In a forked child, before exec: true once released, false when the gate closed
  // without a release (recording failed, the submitter died). Async-signal-safe.
  bool wait_in_child() const;
  // Lets `processes` held children go on to exec, then closes the gate.
  void release(int processes);

 private:
  LaunchGate(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  int read_fd_ = -1;
  int write_fd_ = -1;
};

}  // namespace scalestudy::sched
