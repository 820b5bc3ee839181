// TerminationWatcher: turns SIGTERM / SIGINT (SLURM's time limit, scancel, the launcher
// forwarding Ctrl-C) into a failed run record instead of a silently truncated one — or,
// for a workload that can checkpoint, into a request to stop at the next step boundary.
// The constructor blocks both signals in the calling thread — construct it first thing in
// main(), before any thread exists, so every later thread inherits the mask — and a
// dedicated thread waits for them. By default a signal marks the attached run failed
// ("terminated by signal SIGTERM"), closes the database and exits with 128 + signal, even
// while the training thread is stuck in a collective. After stop_at_step_boundary() the
// first signal only sets stop_requested(): the workload finishes its step, checkpoints and
// exits by itself. A repeated SIGTERM is then ignored (the sender escalates to SIGKILL:
// SLURM after KillWait, the local executor after its grace); a second SIGINT (Ctrl-C
// twice) exits at once as in the default mode. All methods are thread-safe.
#pragma once

#include <signal.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "harness/record/run_writer.hpp"

namespace scalestudy::train {

class TerminationWatcher {
 public:
  TerminationWatcher();
  TerminationWatcher(const TerminationWatcher&) = delete;
  TerminationWatcher& operator=(const TerminationWatcher&) = delete;
  ~TerminationWatcher();

  // The run to mark failed on a signal; nullptr detaches (before the writer goes away).
  void attach(record::RunWriter* writer);
  // From now on a signal asks the workload to stop instead of ending the process.
  void stop_at_step_boundary() { deferred_ = true; }
  bool stop_requested() const { return stop_requested_; }
  // "SIGTERM" / "SIGINT": the signal behind stop_requested(); empty before one arrived.
  const char* requested_by() const { return requested_by_.load(); }

 private:
  void watch();
  [[noreturn]] void fail_and_exit(int signal_number);

  sigset_t signals_;
  sigset_t previous_mask_;
  std::mutex mutex_;
  record::RunWriter* writer_ = nullptr;  // guarded by mutex_
  std::atomic<bool> deferred_{false};
  std::atomic<bool> stop_requested_{false};
  std::atomic<const char*> requested_by_{""};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace scalestudy::train
