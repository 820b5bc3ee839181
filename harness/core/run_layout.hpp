// The run directory layout: the names of the files a run leaves in its folder and where
// that folder lives under a results root. The rank writer, the checkpoint store, both
// launchers, ingest, plan and the campaign build these names here and nowhere else, so a
// renamed file cannot leave one reader behind. Torch-free, header-only.
#pragma once

#include <string>

namespace scalestudy::run_layout {

// "rank<r>.sqlite": one rank's run database (run_schema.hpp).
inline std::string rank_database_name(int rank) {
  return "rank" + std::to_string(rank) + ".sqlite";
}

// "rank<r>.log": one rank's stdout and stderr, written by the launcher.
inline std::string rank_log_name(int rank) {
  return "rank" + std::to_string(rank) + ".log";
}

// "rank<r>.pt": one rank's shard inside a checkpoint step directory.
inline std::string checkpoint_shard_name(int rank) {
  return "rank" + std::to_string(rank) + ".pt";
}

inline std::string in_dir(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

inline std::string rank_database_path(const std::string& run_dir, int rank) {
  return in_dir(run_dir, rank_database_name(rank));
}

inline std::string rank_log_path(const std::string& run_dir, int rank) {
  return in_dir(run_dir, rank_log_name(rank));
}

// "<study>/runs/<run_id>": a run's folder relative to the results root (what the study
// database stores as runs.out_dir).
inline std::string study_run_dir(const std::string& study_name, const std::string& run_id) {
  return study_name + "/runs/" + run_id;
}

// "<results_root>/<study>/runs/<run_id>".
inline std::string run_dir(const std::string& results_root, const std::string& study_name,
                           const std::string& run_id) {
  return in_dir(results_root, study_run_dir(study_name, run_id));
}

}  // namespace scalestudy::run_layout
