// FaultInjector: a crash on purpose at a named point, for the fault tests (ctest -L faults).
// SCALESTUDY_FAULT=<point>[:<n>] arms it: the n-th time (default the first) this process
// passes <point>, it dies with SIGKILL there, as a power cut or `kill -9` would leave it.
// Read once when a command starts and handed to the paths that name points (submit and
// ingest); unarmed it does nothing. The points, in the order a study passes them:
//   submit.claimed      runs claimed in the study database, nothing prepared
//   submit.prepared     run directories and job scripts written, nothing submitted
//   submit.recorded     a run's job id recorded (local: its ranks still held at the gate)
//   submit.launched     a run handed to its scheduler (local: its ranks running)
//   submit.finished     a run's end recorded (local)
//   ingest.run_written  a run's measurements written, the ingest transaction still open
//   ingest.committed    the ingest transaction committed, nothing printed
// Counts passes per object; copies count separately. Not thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "harness/core/status.hpp"

namespace scalestudy::common {

class FaultInjector {
 public:
  FaultInjector() = default;  // unarmed
  // From SCALESTUDY_FAULT; an error for a malformed value or an unknown point.
  static Result<FaultInjector> from_environment();
  // From "<point>[:<n>]"; an error for an unknown point or an n below 1.
  static Result<FaultInjector> parse(const std::string& text);

  bool armed() const { return !point_.empty(); }
  // SIGKILLs this process when `point` is the armed one and this is its n-th pass.
  void reached(std::string_view point);

 private:
  std::string point_;
  int remaining_passes_ = 0;
};

}  // namespace scalestudy::common
