// The profile tables of the study database (docs/study-database.md, "Profiles"): per run,
// rank and source, GPU time per kernel (p_kernels) and wall time per NVTX range (p_nvtx).
// Storing one (run, rank, source) replaces what was stored for it before, in one
// transaction, so ingesting a profile twice changes nothing. Functions over a Database
// the caller owns (one thread at a time).
#pragma once

#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/profiling/profile_data.hpp"

namespace scalestudy::profiling {

// Creates p_kernels and p_nvtx if missing.
Status create_profile_tables(sqlite::Database& db);

Status store_profile(sqlite::Database& db, const std::string& run_id, int rank,
                     const ProfileData& data);

// GPU time per category of one run and source, summed over its ranks.
struct CategoryTime {
  KernelCategory category = KernelCategory::kOther;
  int64_t total_ns = 0;
};

struct StoredProfile {
  std::string run_id;
  std::string source;
  int ranks = 0;                         // ranks with data from this source
  std::vector<CategoryTime> categories;  // every category, display order
  std::vector<RangeTime> ranges;         // summed over ranks, largest first
};

// Every (run, source) with stored data, ordered by run id then source; only `run_id`'s
// when it is not empty.
Result<std::vector<StoredProfile>> load_profiles(sqlite::Database& db,
                                                 const std::string& run_id = "");

}  // namespace scalestudy::profiling
