// Scaling projection beyond the measured scales (docs/projection.md has the model, its
// assumptions and a worked example). From the largest measured point of a series (its
// compute time per step, exposed all-reduce time, gradient bytes and bucket size) and a
// measured all-reduce bus-bandwidth curve (within a node; across nodes too when one was
// measured on several hosts), a ring all-reduce model predicts step time,
// throughput and efficiency at other world sizes; where a scale was also measured, the
// model's error is given. Pure functions over values; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/results/analysis/comm_model.hpp"

namespace scalestudy::results {

// What the model takes from the measured runs of one series.
struct ProjectionModel {
  bool strong = true;  // strong: fixed global batch; weak: fixed per-rank batch
  int global_batch = 0, per_rank_batch = 0;
  // The anchor: the largest measured point.
  int anchor_world_size = 0;
  double compute_ms_per_sample = 0;  // (step − exposed all-reduce) / per-rank batch
  double gradient_bytes = 0;
  double bucket_bytes = 0;      // the bucket cap (the whole gradient when larger or unknown)
  double overlap_fraction = 0;  // share of the all-reduce hidden behind backward
  // busbw by message size within a node (or the only curve measured), and across nodes
  // when an all-reduce ran on several hosts: a world larger than ranks_per_node uses it.
  BandwidthCurve curve;
  std::optional<BandwidthCurve> inter_node_curve;
  int ranks_per_node = 0;  // of the anchor; 0: unknown (every world uses `curve`)
  // The series' baseline, for efficiency.
  int base_world_size = 1;
  double base_throughput_samples_per_s = 0, base_step_ms = 0;
  // What one sample counts in the report's throughput unit: 1, or the tokens of a sample
  // in a study that reports tokens/s (the base's throughput is in that unit too).
  double units_per_sample = 1;
};

struct ProjectedPoint {
  int world_size = 0;
  double per_rank_batch = 0;
  double compute_ms = 0;
  double allreduce_ms = 0;  // ring all-reduce of every bucket
  double exposed_comm_ms = 0;
  double step_ms = 0;
  double throughput_samples_per_s = 0;
  double efficiency = 0;  // strong: X(N)·N_base/(X(base)·N); weak: T(base)/T(N)
  std::optional<double> measured_step_ms;
  std::optional<double> error_pct;  // (projected − measured) / measured · 100
};

// The projection of one series (configuration) of a strong or weak study.
struct SeriesProjection {
  std::string config_label;
  std::string curve_source;  // the all-reduce run whose busbw curve the model used
  ProjectionModel model;
  std::vector<ProjectedPoint> points;  // the targets and the measured scales, ascending
};

// Ring all-reduce of `gradient_bytes` in buckets of `bucket_bytes` over `ranks`: each
// bucket 2(n−1)/n · size / busbw(size).
double bucketed_allreduce_ms(double gradient_bytes, double bucket_bytes, int ranks,
                             const BandwidthCurve& curve);

// 1 − exposed / modelled all-reduce time at the anchor, clamped to [0, 1]; 0 when the
// anchor has one rank (nothing to overlap).
double overlap_fraction(double exposed_comm_ms, double gradient_bytes, double bucket_bytes,
                        int ranks, const BandwidthCurve& curve);

// The curve a world of `world_size` ranks runs its all-reduce over.
const BandwidthCurve& curve_for(const ProjectionModel& model, int world_size);

ProjectedPoint project(const ProjectionModel& model, int world_size);

// "16,32,64,512" → {16, 32, 64, 512}; each a whole number ≥ 1.
std::optional<std::vector<int>> parse_world_sizes(const std::string& text);

}  // namespace scalestudy::results
