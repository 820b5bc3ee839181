// Efficiency against ceilings: a point's training throughput set against the datasheet
// dense peak of its device (MFU) and against what the run's own calibration measured on
// the same allocation (the GEMM ceiling, the all-reduce bus bandwidth at the gradient
// size; harness/train/ceiling_calibration.hpp). Training FLOPs are the workload's own rule
// where it records one (train_flops_per_sample), else 3 × the forward FLOPs (backward costs
// two forwards), the usual MFU convention. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalestudy::results {

// One run's figures, as ingested (summary keys in docs/run-database.md).
struct RunCeilings {
  std::string gpu_model;  // provenance gpu_model; empty on a CPU run
  std::string precision;  // --precision: fp32 | tf32 | fp16 | bf16
  int world_size = 1;
  double samples_per_s = 0;             // global
  std::optional<double> forward_flops;  // per sample
  // Per trained sample by the workload's own rule (a language model's 6N + attention), which
  // replaces 3 × forward_flops.
  std::optional<double> train_flops_per_sample;
  std::optional<double> gemm_tflops;           // ceiling, the slowest rank's
  std::optional<double> allreduce_busbw_gbps;  // ceiling at the gradient size
  std::optional<double> allreduce_span_ms;     // training's all-reduce, the least-waiting rank
  std::optional<double> gradient_bytes;
  std::optional<double> calibration_s;  // the slowest rank's
  // The run's system's stated peak at its precision (peak.tflops), which replaces the
  // datasheet's where the GPU model the system declares (node.gpu_model; empty: none) is the
  // one the run saw; `system` names the system.
  std::optional<double> system_peak_tflops;
  std::string system, system_gpu_model;
  double run_s = 0;  // the epochs' wall time
};

struct PointCeilings {
  int runs = 0;        // repeats with a calibration
  std::string device;  // the peak table's name, the gpu_model, or "cpu"
  std::string precision;
  std::optional<double> peak_tflops;           // dense, per device
  std::string peak_source;                     // "datasheet", or "system <label>"
  std::string peak_note;                       // why there is no peak
  std::optional<double> achieved_tflops;       // per device (rank)
  std::optional<double> mfu;                   // achieved / peak
  std::optional<double> gemm_tflops;           // measured ceiling per device
  std::optional<double> gemm_fraction;         // achieved / measured ceiling
  std::optional<double> allreduce_busbw_gbps;  // measured ceiling
  std::optional<double> achieved_busbw_gbps;   // training's all-reduce
  std::optional<double> busbw_fraction;        // achieved / measured
  std::optional<double> calibration_pct;       // calibration / (calibration + epochs)
};

// Medians over the runs' figures; nullopt when no run calibrated.
std::optional<PointCeilings> combine_ceilings(const std::vector<RunCeilings>& runs);

// Why a fraction of a measured ceiling above 100% is no figure to read, one sentence each:
// the calibration ran slower than the training (GEMM), or the two time different things
// (all-reduce). Empty when both fractions are at most 1.
std::vector<std::string> ceiling_warnings(const PointCeilings& point);

}  // namespace scalestudy::results
