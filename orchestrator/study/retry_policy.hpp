// RetryPolicy: what a study's `policy:` says each failure class of an attempt gets
// (docs/failures.md). The classes are common/failure_class.hpp's; the verdict over a run's
// attempts is campaign/retry_verdict.hpp's. Plain data.
#pragma once

#include <optional>

namespace scalestudy {

struct RetryPolicy {
  // node and preempted failures are retried up to this many times, apart from max_attempts:
  // the run did nothing wrong.
  int max_node_failures = 3;
  // Retries after a failure of each class, within max_attempts. program and setup fail the
  // same way again; a time limit is retried once (from the checkpoint where there is one),
  // a hang once on other nodes. unknown and cancelled runs are retried up to max_attempts.
  int program_retries = 0;
  int setup_retries = 0;
  int time_retries = 1;
  int hang_retries = 1;
  // Seconds without a change of any rank's log or database after which scalestudy-launch
  // takes every rank's stacks and stops the run (a hang); 0 (`off`): no watchdog; unset:
  // the launcher's default, the larger of 10 minutes and 20 x the median step time.
  std::optional<int> hang_after_s;
  // Leave out, at the next submit, the nodes with two or more node or hang failures in the
  // study (status lists them).
  bool exclude_flagged_nodes = false;
};

}  // namespace scalestudy
