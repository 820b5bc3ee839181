// TestFaults: the training loop's hidden test hooks, which make the faults a resume must
// survive happen at a chosen global step whatever the machine's speed. The two faults fire
// at the boundary before their step in a run's first attempt only, so the attempt that
// resumes can run the very same command:
// - --test-signal-at-step: the last rank sends itself SIGTERM and waits until its
//   TerminationWatcher has taken it, so the stop request is in place at that step (the
//   signal path, with the ranks' stop agreement, made deterministic);
// - --test-kill-at-step: every rank SIGKILLs itself, after the periodic checkpoint due at
//   that step (the --checkpoint-every path).
// The two slowdowns act in every attempt, since the attempts of a slowed run must stay slow:
// - --test-step-delay-ms: a pause after every step, so a job outlives its time limit on a
//   fast machine too;
// - --test-slow-rank with --test-slow-rank-ms: that rank sleeps before every backward, so it
//   reaches the gradient all-reduce late and the others wait for it (the straggler that
//   the report must name). A sleep, not busy work: the delay is the same however loaded the
//   machine's cores are.
// Plain value type; the hooks run on the training thread.
#pragma once

#include <cstdint>

#include "harness/core/status.hpp"
#include "harness/train/termination_watcher.hpp"

namespace scalestudy::train {

struct TestFaults {
  int64_t signal_at_step = 0;  // 0: never
  int64_t kill_at_step = 0;    // 0: never
  int64_t step_delay_ms = 0;
  int64_t slow_rank = -1;  // -1: none
  int64_t slow_rank_ms = 0;

  // Before the stop check of `global_step`; an error when the signal was never taken.
  Status signal_if_due(int64_t global_step, int attempt, bool last_rank,
                       const TerminationWatcher& termination) const;
  // After the checkpoint (if any) at `global_step`; does not return when due.
  void kill_if_due(int64_t global_step, int attempt) const;
  void pause_after_step() const;
  // Before backward; sleeps when `rank` is the slow one.
  void delay_if_slow_rank(int rank) const;
};

}  // namespace scalestudy::train
