// Builds study databases and per-rank run databases for the results tests, written
// directly in the documented schemas (docs/study-database.md, docs/run-database.md), so
// the tests exercise ingest and reports on files shaped exactly like the real ones.
// Each StudyFixture owns a fresh temporary directory. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scalestudy::results::testing {

// One planned run and, when `write_rank_files`, its measurements (identical on every
// rank apart from the rank number). Phase times are per measured step; warm-up steps are
// written 10× slower so that including them would show.
struct FixtureRun {
  std::string run_id;
  int repeat = 0;
  int nodes = 1, tasks_per_node = 1, world_size = 1, gpus_per_node = 0;
  int global_batch = 64, per_gpu_batch = 64;
  std::map<std::string, std::string> varied;
  std::map<std::string, std::string> params;  // the runs row's spec_json "params"
  std::string state = "COMPLETED";
  bool profiled = false;
  std::string workload = "train";
  bool write_rank_files = true;

  double samples_per_s = 1000;
  double data_ms = 1, forward_ms = 3, backward_ms = 4, comm_exposed_ms = 1, optimizer_ms = 1;
  double step_ms = 10;
  int measured_steps = 8, warmup_steps = 2;
  std::vector<double> epoch_s = {5, 5};
  std::vector<double> val_acc = {0.5, 0.6};
  std::optional<double> gpu_mem_peak_bytes, gpu_mem_avg_bytes, gpu_mem_mode_bytes;
  double cpu_rss_peak_bytes = 512.0 * 1024 * 1024;
  // Telemetry: 3 samples per rank, RSS peak − 0, 1, 2 bytes; NVML used + 0, 1, 2 MB.
  std::optional<double> nvml_used_bytes;
  double memory_step_per_rank_bytes = 0;  // rank r adds r × this to every memory value
  double gradient_bytes = 44.0e6, bucket_cap_mb = 25;
  std::vector<std::pair<int64_t, double>> collectives;  // (bytes, busbw GB/s), all-reduce
  std::string git_commit = "0123abcd";
  // The batch the workload records (summary global_batch, per_rank_batch); unset: none.
  std::optional<int> recorded_global_batch, recorded_per_rank_batch;
  std::string metrics_json;  // the spec_json "metrics" list (a study's `metrics:`); empty: none
  std::string system_json;   // the spec_json "system" object; empty: none
  // Where and when every rank ran; StudyFixture::add_run gives runs without times
  // consecutive, non-overlapping 10-minute windows.
  std::string host = "host0";
  std::vector<std::string> rank_hosts;  // per rank; empty: every rank on `host`
  std::string started_at, finished_at;  // "2025-01-01T00:00:00Z"
  // All-reduce arrivals of the measured steps (table `arrivals`): rank r arrives
  // arrival_lag_ms[r] after step start, recorded on a clock clock_offset_s[r] behind rank
  // 0's (summary clock_offset_s when non-zero). Empty: no arrivals table, as in files
  // written before it existed.
  std::vector<double> arrival_lag_ms;
  std::vector<double> clock_offset_s;
  std::string gpu_model;  // provenance gpu_model; empty: none (a CPU run)
  std::string config_json = "{}";
  std::vector<std::pair<std::string, double>> extra_summary;  // every rank's
};

class StudyFixture {
 public:
  StudyFixture(const std::string& name, const std::string& kind,
               const std::string& baseline_json = "{}", const std::string& report_json = "{}");
  ~StudyFixture();
  StudyFixture(const StudyFixture&) = delete;
  StudyFixture& operator=(const StudyFixture&) = delete;

  // Inserts the runs row and writes rank<r>.sqlite for each rank into out_dir(run_id).
  void add_run(const FixtureRun& run);
  std::string out_dir(const std::string& run_id) const;
  std::string rank_path(const std::string& run_id, int rank) const;

  const std::string& dir() const { return dir_; }  // results root
  const std::string& db_path() const { return db_path_; }

 private:
  std::string dir_;
  std::string db_path_;
  int runs_added_ = 0;
};

// Writes one rank database of `run` at `path` (replacing any file there).
void write_rank_database(const std::string& path, const FixtureRun& run, int rank);

// Every row of every table, in a canonical order: equal dumps mean equal contents.
std::string dump_database(const std::string& path);

}  // namespace scalestudy::results::testing
