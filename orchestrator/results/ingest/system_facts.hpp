// What a run's system declares of a node (runs.spec_json, "system") against what the run
// saw (its ingested rank rows and provenance): GPUs per node, GPU model, cores, and, for a
// system run by the local executor, the host name against its detect pattern. Ingest and
// the report warn on each mismatch, e.g. "system a declares 4 GPUs per node; run 1a2b…
// saw 0". Reads the study database only; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

// One line per mismatch, over the ingested runs of the current plan whose system declares
// something; runs planned without a system are passed by.
Result<std::vector<std::string>> system_mismatches(sqlite::Database& study_db);

}  // namespace scalestudy::results
