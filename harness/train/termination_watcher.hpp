// TerminationWatcher: turns SIGTERM / SIGINT (SLURM's time limit, scancel, the launcher
// forwarding Ctrl-C) into a failed run record instead of a silently truncated one.
// The constructor blocks both signals in the calling thread — construct it first thing in
// main(), before any thread exists, so every later thread inherits the mask — and a
// dedicated thread waits for them. On a signal it marks the attached run failed
// ("terminated by signal SIGTERM"), closes the database and exits with 128 + signal, even
// while the training thread is stuck in a collective. attach() is thread-safe.
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

 private:
  void watch();

  sigset_t signals_;
  sigset_t previous_mask_;
  std::mutex mutex_;
  record::RunWriter* writer_ = nullptr;  // guarded by mutex_
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace scalestudy::train
