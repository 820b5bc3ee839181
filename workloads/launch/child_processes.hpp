// Runs a group of child processes to completion the way torchrun supervises its workers:
// SIGTERM / SIGINT received by the caller are forwarded to every child; when one child
// fails, the others get `grace` to finish on their own (and record why), then SIGTERM,
// then SIGKILL after another `grace`. The result is the exit code of the first child that
// failed (128 + signal for a child killed by a signal, 128 + the signal the caller received
// and forwarded), or 0 — except that when every child exited exit_codes::kCheckpointed
// (they stopped on the forwarded signal with a checkpoint to resume from), so does the
// launcher; a child exiting with it is no failure that stops the others.
// Call from a single-threaded process (it changes the signal mask and reaps every child).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::launch {

struct ChildSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH
  std::map<std::string, std::string> env;  // added to (or replacing in) the environment
  std::string log_path;  // stdout and stderr appended to this file; empty: inherited
};

// The hang watchdog: when no child's log nor rank database changed for `after` (0: the
// default rule, progress_watch.hpp), every child's stacks are written to
// `stacks_dir`/rank<RANK>.txt (stack_dump.hpp), the launcher says so on its stderr
// ("scalestudy-launch: no progress for …", which the orchestrator classifies as a hang),
// stops the children as after a failure and exits kHangExit.
struct HangWatch {
  bool on = false;
  std::chrono::milliseconds after{0};
  std::string stacks_dir;
  std::string rank_dir;  // where the ranks' databases appear (rank<r>.sqlite)
  std::string py_spy;    // --py-spy: the py-spy to try first (stack_dump.hpp); may be empty
};
// timeout(1)'s status: a plain failure, not a signal the scheduler would read as a cancel.
inline constexpr int kHangExit = 124;

Result<int> run_children(const std::vector<ChildSpec>& children, std::chrono::milliseconds grace,
                         const HangWatch& hang = {});

}  // namespace scalestudy::launch
