// ForkSignalGuard: forking a child that will exec, without the parent's signal handlers
// running in it. Between fork and exec the child is a copy of a possibly multi-threaded
// process; a handler run there (a test framework's, the CLI's) may take a lock another
// thread held at the fork — malloc's, say — and hang the child forever, so a run cancelled
// right after its launch never ends. The parent forks with every signal blocked; the child
// sets every handled signal back to its default action and unblocks what the thread had
// unblocked, so a signal sent meanwhile acts on the child as on the program it execs.
// Construct it on the forking thread just before fork(); it restores the parent's mask
// when it goes. prepare_child() is async-signal-safe.
#pragma once

#include <signal.h>

namespace scalestudy::common {

class ForkSignalGuard {
 public:
  ForkSignalGuard();
  ~ForkSignalGuard();
  ForkSignalGuard(const ForkSignalGuard&) = delete;
  ForkSignalGuard& operator=(const ForkSignalGuard&) = delete;

  // In the child, first thing after fork().
  void prepare_child() const;

 private:
  sigset_t previous_mask_;
};

}  // namespace scalestudy::common
