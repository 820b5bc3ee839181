#include "tests/results/scaled_run.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "harness/core/sqlite.hpp"

namespace scalestudy::results::testing {
namespace {

namespace fs = std::filesystem;

// A number in [0, 1) from the seed and two coordinates (splitmix64): the same for the same
// inputs on every platform and in any order, unlike a shared generator's stream.
double unit_noise(uint64_t seed, uint64_t a, uint64_t b) {
  uint64_t x = seed ^ (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL);
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
}

// Noise coordinates: what a rank's figure is perturbed for.
enum NoiseKind : uint64_t { kMemory = 1, kTiming = 2, kArrival = 3 };

// The memory figures of the summary (the allocator's and the host's) and of telemetry.
constexpr const char* kMemoryNames =
    "('gpu_mem_peak_bytes', 'gpu_mem_peak_all_time_bytes', 'gpu_mem_reserved_peak_bytes', "
    "'gpu_mem_reserved_peak_all_time_bytes', 'gpu_mem_avg_bytes', 'gpu_mem_mode_bytes', "
    "'cpu_rss_peak_bytes')";
// Figures of the whole run that one rank recorded for one rank: N ranks make N times them.
constexpr const char* kGlobalNames =
    "('samples_per_s', 'samples_per_s_step_sum', 'tokens_per_s', 'global_batch')";

struct SourceRun {
  fs::path out_dir;
  std::vector<int64_t> arrival_steps;  // the global steps of the arrivals table
};

Result<SourceRun> source_run(sqlite::Database& study, const std::string& study_db,
                             const std::string& run_id) {
  auto out_dir = study.query_value("SELECT out_dir FROM runs WHERE run_id = ?", {run_id});
  if (!out_dir) return out_dir.status();
  if (!*out_dir) return Status::error(study_db + ": no run " + run_id);
  SourceRun run;
  run.out_dir = sqlite::to_string(**out_dir);
  if (run.out_dir.is_relative()) run.out_dir = fs::path(study_db).parent_path() / run.out_dir;
  auto rank0 =
      sqlite::Database::open((run.out_dir / "rank0.sqlite").string(), sqlite::OpenMode::kReadOnly);
  if (!rank0) return rank0.status();
  auto steps = rank0->query("SELECT global_step FROM arrivals ORDER BY global_step");
  if (!steps) return steps.status();
  for (const auto& row : *steps) run.arrival_steps.push_back(std::get<int64_t>(row[0]));
  return run;
}

Status rewrite_runs_row(sqlite::Database& study, const std::string& run_id,
                        const RankScale& scale) {
  const int per_node = scale.world_size / scale.nodes;
  auto updated = study.query(
      "UPDATE runs SET nodes = ?1, tasks_per_node = ?2, world_size = ?3, "
      "gpus_per_node = CASE WHEN gpus_per_node > 0 THEN ?2 ELSE 0 END, "
      "global_batch = per_gpu_batch * ?3 WHERE run_id = ?4",
      {int64_t{scale.nodes}, int64_t{per_node}, int64_t{scale.world_size}, run_id});
  if (!updated) return updated.status();
  // Whatever an earlier ingest recorded of the run goes: the next reads the new files.
  auto tables = study.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'm\\_%' ESCAPE '\\'");
  if (!tables) return tables.status();
  for (const auto& row : *tables) {
    auto dropped =
        study.query("DELETE FROM " + sqlite::to_string(row[0]) + " WHERE run_id = ?", {run_id});
    if (!dropped) return dropped.status();
  }
  return Status::ok();
}

// One rank's copy of the source, rewritten in place.
Status write_rank(const fs::path& path, const SourceRun& source, int rank, const RankScale& scale) {
  const PlantedOutliers& planted = scale.outliers;
  const int per_node = scale.world_size / scale.nodes;
  const int node = node_of_rank(rank, scale);
  auto db = sqlite::Database::open(path.string(), sqlite::OpenMode::kReadWrite);
  if (!db) return db.status();
  // A scratch copy: a crash may lose it, so no journal on disk and no fsync.
  if (Status fast = db->exec("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF"); !fast) {
    return fast;
  }
  double memory = 1 + 0.004 * (unit_noise(scale.seed, rank, kMemory) - 0.5);
  if (rank == planted.high_memory_rank) memory *= planted.memory_factor;
  const double timing = 1 + 0.01 * (unit_noise(scale.seed, rank, kTiming) - 0.5);
  const double slow_ms = node == planted.slow_node ? planted.slow_node_ms : 0;
  const double late_ms = slow_ms + (rank == planted.late_rank ? planted.late_ms : 0);
  const std::string host = node_name(node);
  const std::vector<std::pair<std::string, std::vector<sqlite::Value>>> statements = {
      {"UPDATE run SET rank = ?1, local_rank = ?2, world_size = ?3, host = ?4, device = CASE "
       "WHEN device LIKE 'cuda%' THEN 'cuda:' || ?2 ELSE device END",
       {int64_t{rank}, int64_t{rank % per_node}, int64_t{scale.world_size}, host}},
      {"UPDATE provenance SET value = ?1 WHERE key = 'hostname'", {host}},
      {"UPDATE provenance SET value = ?1 WHERE key = 'process_group_size'",
       {std::to_string(scale.world_size)}},
      {std::string("UPDATE summary SET value = value * ?1 WHERE name IN ") + kMemoryNames,
       {memory}},
      {"UPDATE telemetry SET cpu_rss_bytes = CAST(cpu_rss_bytes * ?1 AS INTEGER), "
       "gpu_mem_used_bytes = CAST(gpu_mem_used_bytes * ?1 AS INTEGER)",
       {memory}},
      {std::string("UPDATE summary SET value = value * ?1 WHERE name IN ") + kGlobalNames,
       {double(scale.world_size)}},
      {"UPDATE epochs SET samples_per_s = samples_per_s * ?1", {double(scale.world_size)}},
      {"UPDATE summary SET value = value * ?1 + ?2 WHERE name = 'step_ms_median'",
       {timing, slow_ms}},
      {"UPDATE steps SET forward_ms = forward_ms * ?1, backward_ms = backward_ms * ?1 + ?2, "
       "step_ms = step_ms * ?1 + ?2",
       {timing, slow_ms}},
  };
  return sqlite::in_transaction(*db, [&]() -> Status {
    for (const auto& [sql, params] : statements) {
      if (auto done = db->query(sql, params); !done) return done.status();
    }
    auto arrival = db->prepare(
        "UPDATE arrivals SET arrival_unix_s = arrival_unix_s + ?1 WHERE global_step = ?2");
    if (!arrival) return arrival.status();
    for (int64_t step : source.arrival_steps) {
      // Within a millisecond of rank 0's own arrival, and the planted lateness.
      const double jitter_ms = unit_noise(scale.seed, rank, kArrival * 1'000'003 + step) - 0.5;
      if (Status set = arrival->bind(1, (jitter_ms + late_ms) / 1000).bind(2, step).run(); !set) {
        return set;
      }
      if (Status reset = arrival->reset(); !reset) return reset;
    }
    return Status::ok();
  });
}

// Deletes every row of the runs not in `kept` from every table with a run_id, and their
// folders.
Status keep_only_runs(sqlite::Database& study, const fs::path& results_dir,
                      const std::vector<std::string>& kept) {
  auto runs = study.query("SELECT run_id, out_dir FROM runs");
  if (!runs) return runs.status();
  auto tables = study.query(
      "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS "
      "(SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'run_id')");
  if (!tables) return tables.status();
  for (const auto& run : *runs) {
    const std::string run_id = sqlite::to_string(run[0]);
    if (std::find(kept.begin(), kept.end(), run_id) != kept.end()) continue;
    for (const auto& table : *tables) {
      auto dropped =
          study.query("DELETE FROM " + sqlite::to_string(table[0]) + " WHERE run_id = ?", {run_id});
      if (!dropped) return dropped.status();
    }
    std::error_code ignored;
    fs::remove_all(results_dir / sqlite::to_string(run[1]), ignored);
  }
  return Status::ok();
}

}  // namespace

std::string node_name(int node) {
  char name[32];
  std::snprintf(name, sizeof name, "node%03d", node);
  return name;
}

int node_of_rank(int rank, const RankScale& scale) {
  return rank / (scale.world_size / scale.nodes);
}

PlantedOutliers planted_outliers(const RankScale& scale) {
  const int per_node = scale.world_size / scale.nodes;
  PlantedOutliers planted;
  planted.high_memory_rank = scale.world_size / 2 + per_node / 4 + 1;  // 517 of 1,024
  planted.late_rank = scale.world_size / 4 + per_node / 2 + 3;         // 267
  planted.slow_node = scale.nodes * 3 / 4 - 3;                         // node045
  return planted;
}

Status scale_run(const std::string& study_db, const std::string& run_id, const RankScale& scale) {
  if (scale.nodes < 1 || scale.world_size < scale.nodes || scale.world_size % scale.nodes != 0) {
    return Status::error("world size " + std::to_string(scale.world_size) +
                         " is no multiple of the " + std::to_string(scale.nodes) + " nodes");
  }
  auto study = sqlite::Database::open(study_db, sqlite::OpenMode::kReadWrite);
  if (!study) return study.status();
  auto source = source_run(*study, study_db, run_id);
  if (!source) return source.status();
  // Every copy comes from the recorded file, rank 0's included.
  const fs::path recorded = source->out_dir / "rank0.recorded.sqlite";
  std::error_code error;
  fs::copy_file(source->out_dir / "rank0.sqlite", recorded, fs::copy_options::overwrite_existing,
                error);
  if (error) return Status::error(recorded.string() + ": " + error.message());
  for (int rank = 0; rank < scale.world_size; ++rank) {
    const fs::path path = source->out_dir / ("rank" + std::to_string(rank) + ".sqlite");
    fs::copy_file(recorded, path, fs::copy_options::overwrite_existing, error);
    if (error) return Status::error(path.string() + ": " + error.message());
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
    if (Status written = write_rank(path, *source, rank, scale); !written) {
      return written.with_context("rank " + std::to_string(rank));
    }
  }
  fs::remove(recorded, error);
  return sqlite::in_transaction(*study, [&] { return rewrite_runs_row(*study, run_id, scale); });
}

Result<std::string> write_weak_study_at_scale(const std::string& recorded_dir,
                                              const std::string& out_dir, const RankScale& scale) {
  // Two repeats of optimizer sharding none: the first stays at 1 GPU, the second scales.
  const std::string recorded_run = "d0bd912dd669ae6e", scaled_run = "82138ead5b13e219";
  std::error_code error;
  fs::remove_all(out_dir, error);
  fs::create_directories(out_dir, error);
  fs::copy(recorded_dir, out_dir, fs::copy_options::recursive, error);
  if (error) return Status::error("copying " + recorded_dir + ": " + error.message());
  for (const auto& entry : fs::recursive_directory_iterator(out_dir)) {
    fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  const std::string study_db = (fs::path(out_dir) / kRecordedStudy).string() + ".sqlite";
  {
    auto study = sqlite::Database::open(study_db, sqlite::OpenMode::kReadWrite);
    if (!study) return study.status();
    Status trimmed = sqlite::in_transaction(*study, [&]() -> Status {
      if (Status kept = keep_only_runs(*study, out_dir, {recorded_run, scaled_run}); !kept) {
        return kept;
      }
      return study->exec("UPDATE study SET kind = 'weak', baseline_json = '{}'");
    });
    if (!trimmed) return trimmed;
  }
  if (Status scaled = scale_run(study_db, scaled_run, scale); !scaled) return scaled;
  return study_db;
}

}  // namespace scalestudy::results::testing
