// The report of one study: its measured points (a configuration at a scale, over its
// repeats) with statistics, scaling efficiency or sensitivity deltas vs the baseline,
// phase shares and bottleneck, memory, the communication-model prediction, and warnings.
// build_report() computes it from a study database (grouping runs into points,
// report_points.hpp; then the scaling, sensitivity and projection steps, report_*.hpp);
// render_report() (report_render.hpp) prints it. Plain value types; build_report uses the
// Database from one thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/common/failed_attempts.hpp"
#include "orchestrator/results/analysis/bottleneck.hpp"
#include "orchestrator/results/analysis/ceilings.hpp"
#include "orchestrator/results/analysis/comm_model.hpp"
#include "orchestrator/results/analysis/interference.hpp"
#include "orchestrator/results/analysis/projection.hpp"
#include "orchestrator/results/analysis/sensitivity_verdict.hpp"
#include "orchestrator/results/analysis/significance.hpp"
#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/results/analysis/stragglers.hpp"
#include "orchestrator/results/ingest/rank_memory.hpp"
#include "orchestrator/results/report/run_measurements.hpp"

namespace scalestudy::results {

inline constexpr const char* kReportSchema = "scalestudy.report/1";

struct ReportOptions {
  // `--baseline key=value,...`: replaces the study's baseline selector. Keys: nodes,
  // world_size (or gpus, ranks), global_batch, per_gpu_batch, or a varied parameter.
  std::map<std::string, std::string> baseline_override;
  // Override the study's report settings (report_json) when set.
  std::optional<double> input_bound_pct, comm_bound_pct, target_gain_pct, target_acc;
  std::optional<double> efficiency_threshold_pct;
  // Where the communication model's bandwidth curves come from instead of the study's own
  // all-reduce runs: an all-reduce run database, or another study's database.
  std::string comm_model_database;
  // `--project 16,32,64,512`: project strong/weak series to these world sizes.
  std::vector<int> project_world_sizes;
  // Only runs whose recorded git commit starts with this prefix (empty: every run).
  std::string git_commit;
};

// A point's memory over its repeats: peaks the largest, the others medians.
struct MemoryUse {
  // The caching allocator's peaks: of tensors and of memory reserved from the driver.
  std::optional<double> gpu_peak_bytes, gpu_reserved_peak_bytes;
  // NVML's device memory in use: the largest sample, the mean and most frequent sample.
  std::optional<double> nvml_peak_bytes, gpu_avg_bytes, gpu_mode_bytes;
  std::optional<double> cpu_rss_peak_bytes;
  // The optimizer's state on the rank that holds the most: 1/N of it under ZeRO-1.
  std::optional<double> optimizer_state_bytes;
};

struct EpochAccuracy {
  int epoch = 0;       // 1-based
  double val_acc = 0;  // median over repeats, fraction
};

// Time-to-accuracy of a point (report_time_to_target.hpp): the workloads' own record of
// when global validation first reached the study's target, over the repeats, against the
// series' baseline point.
struct TimeToTarget {
  std::string metric;  // "val_accuracy" | "val_loss"
  double value = 0;
  int reached_runs = 0, runs = 0;  // repeats that reached it, of those that had the target
  std::optional<double> time_s{};  // median over the repeats that reached it
  std::optional<double> epoch{};   // median epoch it was reached in
  // baseline time / this time, and that over the ranks' ratio (1 at the baseline).
  std::optional<double> speedup{}, efficiency{};
};

// Validation accuracy (or loss, for a loss target) after the same number of epochs as the
// series' baseline, compared over repeats with Welch's t (significance.hpp).
struct AccuracyVersusBaseline {
  std::string metric;  // "val_accuracy" | "val_loss"
  int epoch = 0;       // the last epoch every repeat of both points recorded
  double change = 0;   // mean here − mean at the baseline (accuracy in points, loss as is)
  // Worse beyond the repeats' noise (significant at 5% and in the bad direction); nullopt:
  // no verdict, fewer than kMinRepeatsForTest repeats on a side, or identical repeats.
  std::optional<bool> worse;
  int repeats = 0;  // the fewer of the two points'
  // Every repeat of both points gave the same figure (repeats of one seed): no noise to
  // judge against, so no verdict; `seed: ${repeat}` varies it.
  bool identical_repeats = false;
};

struct ReportPoint {
  std::string config_label;  // "precision=bf16 bucket_cap_mb=25", or "default"
  std::map<std::string, std::string> config;
  int nodes = 0, world_size = 0;
  // As its runs recorded them (run_device.hpp), or as planned while none has: the GPUs a
  // run used (0 on CPU runs), the kind of device ("cuda", "cpu"; empty: not recorded) and
  // the GPU model (empty: none); repeats that differ give each value, joined by ", ".
  int gpus = 0;
  std::string device, gpu_model;
  int global_batch = 0, per_gpu_batch = 0;
  std::vector<std::string> run_ids;  // measured repeats
  int planned_runs = 0, failed_runs = 0;
  bool is_baseline = false;

  Summary throughput_samples_per_s;
  Summary epoch_s;
  Summary step_ms;
  std::optional<double> final_val_acc;  // median over repeats, fraction
  PhaseShares phases;                   // median over the repeats that recorded phases
  bool phases_measured = false;         // false: no run recorded step phases (printed only)
  Bottleneck bottleneck = Bottleneck::kCompute;
  double device_hours_per_epoch = 0;  // GPU-hours (GPU runs) or rank-hours

  // Strong: speedup and efficiency; weak: efficiency; vs the series' baseline point.
  std::optional<double> speedup, efficiency;
  bool below_efficiency_threshold = false;   // efficiency < Report::efficiency_threshold_pct
  std::optional<double> time_to_accuracy_s;  // when a target accuracy is set and reached
  std::optional<TimeToTarget> to_target;     // when the runs had a target (study `target:`)
  std::optional<AccuracyVersusBaseline> accuracy_vs_baseline;  // not at the baseline
  // Sensitivity: vs the baseline configuration at the same scale.
  std::optional<double> throughput_change_pct, accuracy_change_points;

  // The device's energy over the measured steps (analysis/energy.hpp): joules per sample
  // and average power per GPU, medians over the repeats that recorded them; peak power the
  // largest. `energy_unavailable`: why they are empty ("" when they are not, or when no
  // run recorded energy at all: `energy_recorded` false).
  bool energy_recorded = false;
  std::optional<double> joules_per_sample, avg_power_w, peak_power_w;
  std::optional<double> joules_per_token;  // a language model's: per sample / seq_len
  std::string energy_unavailable;
  // The SM clock's range and the clock-event reasons over the ranks and repeats.
  std::optional<double> sm_clock_max_mhz, sm_clock_min_mhz;
  std::string clock_events;

  MemoryUse memory;
  MemoryUse memory_ratio;               // value / the baseline point's value
  std::vector<RankMemory> rank_memory;  // per rank, over repeats
  std::optional<CommPrediction> comm;
  std::string comm_curve_source;
  std::vector<EpochAccuracy> accuracy_curve;
  // The study's `metrics:` by name: the median over repeats, in the metric's unit.
  std::map<std::string, PrintedMetric> output_metrics;
  // Against the datasheet peak and the run's own calibration (report_ceilings.hpp); none
  // when no repeat calibrated.
  std::optional<PointCeilings> ceilings;
  // The rank the others waited for at the gradient all-reduce, per repeat that recorded
  // arrivals on several ranks (report_stragglers.hpp; per_step left empty).
  std::vector<RunStraggler> stragglers;
  // Every rank at the gradient all-reduce over those repeats, ascending rank.
  std::vector<RankArrival> rank_arrivals;
};

// One point on two systems (report_systems.hpp): `system` against `reference`, the first
// of the study's systems.
struct SystemsPoint {
  std::string config_label;  // the configuration without the system
  int world_size = 0, nodes = 0;
  std::string reference, system;
  Summary throughput_reference, throughput_system;  // samples/s over repeats
  MeanComparison comparison;                        // system / reference
  std::optional<double> efficiency_reference, efficiency_system;
  std::optional<double> time_to_target_reference_s, time_to_target_system_s;
};

// Two runs whose job steps ran side by side, on disjoint nodes, in one packed allocation.
struct CoRunning {
  std::string run_a, run_b;  // run_a started first
  std::string allocation;    // the job id
  std::string nodes_a, nodes_b;
  double overlap_s = 0;
};

// A study's time from its first submission to its last run's end (time to result), split
// into the time some run of it was running and the rest, queue wait (report_placement.hpp).
struct TimeToResult {
  double wall_s = 0, run_s = 0, queue_wait_s = 0;
};

struct Report {
  std::string schema = kReportSchema;
  std::string study;
  std::string kind;  // strong | weak | sensitivity | custom
  // What every throughput figure counts: "samples", or "tokens" (the study's
  // report.throughput_unit; samples × each run's tokens_per_sample).
  std::string throughput_unit = "samples";
  bool gpu = false;  // any point's runs used GPUs: "GPU-hours", else "rank-hours"
  std::map<std::string, std::string> baseline;  // the selector used
  BottleneckThresholds thresholds;
  std::optional<double> target_gain_pct, target_acc;
  std::optional<double> efficiency_threshold_pct;  // report.thresholds.efficiency_pct
  std::vector<ReportPoint> points;                 // by configuration, then world size
  std::optional<SensitivityVerdict> sensitivity;
  // The study's own all-reduce runs (scalestudy-allreduce), by world size.
  std::vector<BandwidthCurve> bandwidth_curves;
  int runs_planned = 0, runs_measured = 0, runs_failed = 0;
  std::vector<SeriesProjection> projections;  // with ReportOptions::project_world_sizes
  // Pairs of runs whose measured windows overlapped on a shared host.
  std::vector<RunOverlap> overlaps;
  // Pairs of runs whose steps overlapped in one packed allocation (pack: {policy: concurrent}).
  std::vector<CoRunning> co_running;
  // The hosts of the runs with stragglers, most often last first.
  std::vector<HostStraggles> straggler_hosts;
  // From the scheduler's record of the runs; none when it gave none (local executor).
  std::optional<TimeToResult> time_to_result;
  // The systems the runs were planned on, in the study's order; with several, each point's
  // configuration holds its system and `systems_side_by_side` compares them.
  std::vector<std::string> systems;
  std::vector<SystemsPoint> systems_side_by_side;
  // Every failed attempt with its class and evidence, and the nodes they failed on, by
  // class (docs/failures.md); none from a database before failure classes.
  std::vector<common::FailedAttempt> failed_attempts;
  std::vector<common::NodeFailures> failure_nodes;
  std::vector<std::string> warnings;
};

Result<Report> build_report(sqlite::Database& study_db, const ReportOptions& options = {});

// Parses "key=value[,key=value]" (the --baseline flag).
Result<std::map<std::string, std::string>> parse_baseline_selector(const std::string& text);

}  // namespace scalestudy::results
