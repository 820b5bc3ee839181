// One side of `scalestudy compare`: a study database's report and what its measured runs
// recorded. STUDY@SYSTEM narrows the report to the runs on that system when the study ran on
// one of that name, else STUDY@COMMIT to the runs of that git commit.
#pragma once

#include <map>
#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/results/compare/provenance_diff.hpp"
#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

struct ComparedStudy {
  Report report;
  std::map<std::string, ProvenanceValues> provenance;  // by run id
};

// `suffix`: what followed '@' (a system or a commit prefix), may be empty; `label`: the side
// as given, naming it in errors; `ingest`: the run databases are ingested first.
Result<ComparedStudy> load_compared_study(const std::string& database, const std::string& suffix,
                                          bool ingest, const std::string& label);

}  // namespace scalestudy::results
