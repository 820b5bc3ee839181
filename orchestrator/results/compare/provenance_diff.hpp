// What differs between where and how two sets of runs ran, for `compare` to explain a
// verdict: their binaries, versions, parameters, environment and hosts, from what every
// rank recorded (m_provenance, m_run) and what the study planned (runs.params_json, the
// spec's env). Differences come ordered by how likely they are to cause a change in speed:
// the build, then library and driver versions, parameters, environment, resolved runtime
// choices, and hosts last. Functions over a Database used by one thread; the rest pure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

// Every value a key took, over a set of runs and their ranks. Keys: the provenance keys of
// docs/run-database.md (less those that name one job, e.g. slurm_job_id, master_port,
// attempt.*), "host", "device", "backend", "workload", "param.<name>" (the planned
// parameters) and "env.<NAME>" (recorded or set by the study).
using ProvenanceValues = std::map<std::string, std::set<std::string>>;

// Most likely cause first.
enum class DifferenceKind { kBuild, kVersions, kParameters, kEnvironment, kRuntime, kHosts };
const char* to_string(DifferenceKind kind);

struct ProvenanceDifference {
  DifferenceKind kind = DifferenceKind::kBuild;
  std::string key;
  std::set<std::string> a{}, b{};  // empty: the side did not record the key
};

// Each run's values, by run id; runs without any are absent.
Result<std::map<std::string, ProvenanceValues>> load_run_provenance(
    sqlite::Database& study_db, const std::vector<std::string>& run_ids);

// The union of the runs' values.
ProvenanceValues merge_provenance(const std::map<std::string, ProvenanceValues>& by_run,
                                  const std::vector<std::string>& run_ids);

// Keys whose values differ, by kind (most likely cause first), then key.
std::vector<ProvenanceDifference> diff_provenance(const ProvenanceValues& a,
                                                  const ProvenanceValues& b);

// A side's values for display: "(none)" when it did not record the key, several joined by
// "|".
std::string joined_values(const std::set<std::string>& values);

}  // namespace scalestudy::results
