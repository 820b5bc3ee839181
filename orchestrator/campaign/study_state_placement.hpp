// Where and when each attempt of a run ran (the `placements` table of the study database,
// docs/study-database.md): written as polls learn it, read by `status` and the report.
#pragma once

#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/common/job_state.hpp"

namespace scalestudy::campaign {

struct PlacementRecord {
  std::string run_id;
  int attempt = 0;
  std::string job_id;
  common::JobPlacement placement;
};

// Inside the caller's transaction: the run's current attempt ran as `placement` (fields
// the poll did not learn keep what an earlier poll recorded). Nothing for an empty one.
Status record_placement(sqlite::Database& db, const std::string& run_id, const std::string& job_id,
                        const common::JobPlacement& placement);

// Every placement of the study's planned runs, by run id and attempt.
Result<std::vector<PlacementRecord>> read_placements(sqlite::Database& db);

}  // namespace scalestudy::campaign
