// Ingesting a profiled run's profiler output from its folder into the study database's
// profile tables. Files are recognised by name (the profiles/ wrappers and docs/profiling.md
// produce these names; "rank<N>" in a name gives the rank, else 0):
//   *_cuda_gpu_kern_sum.csv, *_cuda_gpu_mem_time_sum.csv, *_nvtx_sum.csv  nsys stats   "nsys-stats"
//   nsys-*.sqlite                                                         nsys export "nsys-sqlite"
//   ncu-*.csv                                                             ncu CSV      "ncu"
//   trace-*.json                                                          NVTX trace   "nvtx-trace"
// Each (rank, source) is stored whole, replacing an earlier ingest. Functions; the caller
// owns the database.
#pragma once

#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::profiling {

struct IngestedFile {
  std::string path;
  std::string source;
  int rank = 0;
};

// The recognised files of `out_dir`, sorted by path; none when the folder is missing.
std::vector<IngestedFile> find_profile_files(const std::string& out_dir);

// Reads every recognised file of `out_dir` and stores it under `run_id`. An error names
// the first file that could not be read; nothing of that (rank, source) is stored then.
Result<std::vector<IngestedFile>> ingest_profile_dir(sqlite::Database& db,
                                                     const std::string& run_id,
                                                     const std::string& out_dir);

// ingest_profile_dir for every profiled run of the study database `db` (its runs table's
// profiled rows, each from its out_dir), or only `only_run` when not empty.
Status ingest_profiled_runs(sqlite::Database& db, const std::string& only_run);

}  // namespace scalestudy::profiling
