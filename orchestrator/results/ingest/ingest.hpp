// Ingest: copies the per-rank run databases of a study's finished runs into the study
// database's m_* tables (see measurement_schema.hpp). One BEGIN IMMEDIATE transaction for
// the whole ingest, so a crash or an error leaves the study database as it was;
// idempotent, because a run whose rank files are unchanged (sizes and mtimes) is skipped
// and a changed one is replaced (delete + insert). A corrupt, truncated, foreign or
// missing rank file marks that run FAILED with the reason and the rest is ingested —
// unless the run was ingested before: then the measurements stay, the run stays as it
// was, and the outcome says "run directory gone, measurements kept" (a scratch purge).
// A study with `metrics:` also reads each rank's captured output (output_metrics.hpp);
// its runs may write no run database at all, and a pattern that matches nothing marks the
// run FAILED with that reason.
// Not thread-safe per Database; concurrent processes serialise on the database lock.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/common/fault_injection.hpp"

namespace scalestudy::results {

struct IngestOptions {
  // Relative runs.out_dir values are resolved against this directory; empty: the
  // study database's folder (the results dir), where submit stores them relative to.
  std::string base_dir;
  // Also copy every step row into m_steps (phase aggregates are always stored).
  bool store_steps = false;
  // Called inside the transaction after each run was written; an error aborts the whole
  // ingest and rolls it back (progress reporting, cancellation, failure-injection tests).
  std::function<Status(const std::string& run_id)> after_run;
  common::FaultInjector faults;  // the ingest.* points; passes counted per ingest_study call
};

struct IngestOutcome {
  int ingested = 0;                   // runs (re)written
  int unchanged = 0;                  // runs skipped because their rank files did not change
  int failed = 0;                     // runs marked FAILED by this ingest
  std::vector<std::string> failures;  // "<run_id>: <reason>"
  // Runs ingested before whose rank files are gone: "<run_id>: run directory gone,
  // measurements kept".
  std::vector<std::string> kept;
  // Each ingested run whose system declares what the run did not see (system_facts.hpp).
  std::vector<std::string> system_mismatches;
};

// Ingests every run whose state is COMPLETED, and every run in a finished state whose
// rank files all exist and all report status completed.
Result<IngestOutcome> ingest_study(sqlite::Database& study_db, const IngestOptions& options = {});
Result<IngestOutcome> ingest_study(const std::string& study_db_path,
                                   const IngestOptions& options = {});

}  // namespace scalestudy::results
