#include "harness/train/test_faults.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace scalestudy::train {

Status TestFaults::signal_if_due(int64_t global_step, int attempt, bool last_rank,
                                 const TerminationWatcher& termination) const {
  if (signal_at_step == 0 || global_step != signal_at_step || attempt != 1 || !last_rank) {
    return Status::ok();
  }
  ::kill(::getpid(), SIGTERM);
  // The watcher's thread takes the signal; a minute only guards against a lost one.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!termination.stop_requested()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::error("--test-signal-at-step: SIGTERM was not taken within a minute");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::ok();
}

void TestFaults::kill_if_due(int64_t global_step, int attempt) const {
  if (kill_at_step != 0 && global_step == kill_at_step && attempt == 1) ::raise(SIGKILL);
}

void TestFaults::pause_after_step() const {
  if (step_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(step_delay_ms));
}

void TestFaults::delay_if_slow_rank(int rank) const {
  if (rank == slow_rank && slow_rank_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(slow_rank_ms));
  }
}

}  // namespace scalestudy::train
