// The failure class of each attempt (attempts.failure_class, .failure_evidence; the run's
// latest in runs.failure_class, .failure_evidence; docs/failures.md) as the campaign
// writes and reads it: an attempt's failure recorded, a run's failures by class (the retry
// verdict's input), the nodes a run's next attempt leaves out (its own node and hang
// failures', and the flagged nodes of common/failed_attempts.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/campaign/retry_verdict.hpp"
#include "orchestrator/common/failed_attempts.hpp"

namespace scalestudy::campaign {

// Inside the caller's transaction: the run's current attempt failed as `failure` (nullptr:
// it did not fail; the run's columns are cleared).
Status record_attempt_failure(sqlite::Database& db, const std::string& run_id,
                              const common::Failure* failure);

// Each run's attempts by failure class, by run id.
Result<std::map<std::string, FailureCounts>> failure_counts(sqlite::Database& db);

// The nodes (SLURM host lists, as placements hold them) the next attempt of `run_id`
// leaves out: those of its own node and hang failures, and with `flagged_too` every
// flagged node of the study.
Result<std::vector<std::string>> nodes_to_exclude(sqlite::Database& db, const std::string& run_id,
                                                  bool flagged_too);

}  // namespace scalestudy::campaign
