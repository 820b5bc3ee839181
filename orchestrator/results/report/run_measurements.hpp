// Loads what the report needs from a study database: the study row, and per planned run
// its plan (scale, configuration) joined with the ingested measurements reduced to
// run-level numbers (throughput, epoch and step times, phase shares, accuracy curve,
// memory). Also loads all-reduce bandwidth curves for the communication model.
// Functions over a Database used by one thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/analysis/bottleneck.hpp"
#include "orchestrator/results/analysis/comm_model.hpp"
#include "orchestrator/results/analysis/energy.hpp"
#include "orchestrator/results/report/run_device.hpp"

namespace scalestudy::results {

struct StudyInfo {
  std::string name;
  std::string kind;  // strong | weak | sensitivity | custom
  std::string source_path;
  std::string baseline_json;
  std::string report_json;
};

// Mean per-step phase times over non-warm-up steps, averaged over ranks.
struct PhaseTimes {
  double data_ms = 0, forward_ms = 0, backward_ms = 0, comm_exposed_ms = 0, optimizer_ms = 0;
  double step_ms = 0;
  PhaseShares shares() const;
};

// One figure of a study's `metrics:` for a run: reduced over ranks, in its unit.
struct PrintedMetric {
  double value = 0;
  std::string unit;
};

struct RunMeasurement {
  // From the runs table.
  std::string run_id;
  int repeat = 0;
  int nodes = 0, tasks_per_node = 0, world_size = 0, gpus_per_node = 0;
  int global_batch = 0, per_gpu_batch = 0;
  std::map<std::string, std::string> varied;
  bool profiled = false;
  std::string state, job_id, reason;

  // From the m_* tables; `measured` is false when the run was not ingested.
  bool measured = false;
  std::string workload;
  std::string git_commit;
  // What the ranks recorded of their devices; a run not measured, or measured by its
  // output alone (no ranks recorded), has no device and the GPUs its plan gave it.
  RunDevice device;
  double samples_per_s = 0;
  // Where samples_per_s comes from: measured (the run database, a throughput metric),
  // derived as global_batch / step time for a program that prints only its step time, or
  // nowhere (0 is then no figure: the tables show '-').
  enum class Throughput { kMeasured, kFromStepTime, kNone } throughput = Throughput::kNone;
  double epoch_s = 0;         // median over the run's epochs
  double step_ms_median = 0;  // median over ranks of each rank's median step time
  PhaseTimes phases;
  std::optional<double> final_val_acc;
  std::vector<double> epoch_s_per_epoch;
  std::vector<std::optional<double>> val_acc_per_epoch;
  // GPU memory: the caching allocator's peaks (tensors, reserved; the largest rank's),
  // and NVML's device memory in use: the largest telemetry sample, the ranks' mean of
  // their samples' mean, the largest rank's most frequent sample.
  std::optional<double> gpu_mem_peak_bytes, gpu_mem_reserved_peak_bytes;
  std::optional<double> nvml_peak_bytes, gpu_mem_avg_bytes, gpu_mem_mode_bytes;
  std::optional<double> cpu_rss_peak_bytes;
  std::optional<double> optimizer_state_bytes;  // the largest rank's
  std::optional<double> tokens_per_sample;      // a language model's seq_len
  // The device's energy, power and clocks over the measured steps (m_energy); none where
  // the ranks recorded none (runs before the table, workloads without a training loop).
  std::optional<RunEnergy> energy;
  std::map<std::string, std::string> params;  // the parameters the program was given
  std::optional<double> gradient_bytes, bucket_cap_mb;
  // The batch the workload recorded it trained with (summary per_rank_batch, global_batch);
  // absent for workloads without one and for runs recorded before they were written.
  std::optional<int> recorded_global_batch, recorded_per_rank_batch;
  // Time-to-accuracy (summary target_val_accuracy or target_val_loss, time_to_target_s and
  // time_to_target_epoch, rank 0's): the target the run raced to ("val_accuracy" or
  // "val_loss") and when it first reached it; the times are absent when it never did, all
  // of it in runs without a target and in run databases written before there were any.
  std::string target_metric;
  std::optional<double> target_value, time_to_target_s;
  std::optional<int> time_to_target_epoch;
  std::vector<std::optional<double>> val_loss_per_epoch;
  // The study's `metrics:` (m_output_metrics), by name; those with a role also fill the
  // fields above that the run database left empty.
  std::map<std::string, PrintedMetric> output_metrics;
};

Result<StudyInfo> load_study_info(sqlite::Database& study_db);
// Every planned run, in planning order (runs rowid).
Result<std::vector<RunMeasurement>> load_run_measurements(sqlite::Database& study_db);
// One curve per ingested run that recorded all-reduce collectives (rank 0's rows).
Result<std::vector<BandwidthCurve>> load_bandwidth_curves(sqlite::Database& study_db);
// The curves of `--comm-model`: an all-reduce run's database file (one curve), or a study
// database (one curve per all-reduce run it ingested); an error when that gives none.
Result<std::vector<BandwidthCurve>> load_comm_model_curves(const std::string& database_path);

}  // namespace scalestudy::results
