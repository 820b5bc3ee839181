// A communication model from a measured all-reduce bandwidth curve (scalestudy-allreduce,
// nccl-tests semantics): interpolates bus bandwidth at a run's bucket size, predicts the
// per-step all-reduce time of its gradient bytes, and from that the step time and
// scaling efficiency the run would reach with no overlap of compute and communication;
// and which of several measured curves stands for a given world size. Pure functions over
// values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scalestudy::results {

struct BandwidthPoint {
  int64_t bytes = 0;
  double busbw_gbps = 0;  // GB/s, 1e9 bytes per second
};

struct BandwidthCurve {
  std::string source;  // run id or file it was measured in
  int world_size = 0;
  std::vector<BandwidthPoint> points;  // ascending bytes
  int hosts = 0;  // distinct hosts its ranks ran on; 0: not recorded (a lone rank database)
};

// Which all-reduce curves a choice considers: those measured on one host (or whose hosts
// were not recorded), those measured across several, or all.
enum class CurveSpan { kAny, kOneHost, kSeveralHosts };

// The curve of `span` whose world size is nearest `world_size` (the first of equals);
// curves of fewer than 2 ranks or no points never count. nullptr when none does.
const BandwidthCurve* nearest_curve(const std::vector<BandwidthCurve>& curves, int world_size,
                                    CurveSpan span = CurveSpan::kAny);

// Bus bandwidth at `bytes`, linear in log(bytes) between measured sizes and clamped to
// the first/last size outside them; nullopt for an empty curve.
std::optional<double> interpolate_busbw_gbps(const BandwidthCurve& curve, double bytes);

// All-reduce time of `bytes` over `ranks` at a bus bandwidth: 2(n−1)/n · bytes / busbw
// (= bytes / algbw); 0 for one rank.
double allreduce_time_ms(double bytes, int ranks, double busbw_gbps);

struct CommPrediction {
  double busbw_gbps = 0;  // at the run's bucket size
  double comm_ms = 0;     // predicted all-reduce time per step
  double compute_ms = 0;  // per-sample compute time (from the base) × per-rank batch
  double predicted_step_ms = 0;
  double predicted_efficiency = 0;  // compute_ms / predicted_step_ms
  double measured_step_ms = 0;
  double measured_efficiency = 0;  // compute_ms / measured_step_ms
};

CommPrediction predict_step(double compute_ms_per_sample, int per_rank_batch, int ranks,
                            double gradient_bytes, double busbw_gbps, double measured_step_ms);

}  // namespace scalestudy::results
