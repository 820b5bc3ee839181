#include "orchestrator/results/report/report_projection.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "orchestrator/results/analysis/projection.hpp"

namespace scalestudy::results {
namespace {

// The model of one series from its largest measured point with gradient sizes.
std::optional<SeriesProjection> project_series(const std::vector<const PointWork*>& series,
                                               const BandwidthCurve& curve,
                                               const BandwidthCurve* inter_node_curve, bool strong,
                                               const std::vector<int>& targets, bool in_tokens) {
  const PointWork* anchor = nullptr;
  const PointWork* base = nullptr;
  for (const auto* work : series) {
    if (work->point.is_baseline) base = work;
    if (!work->gradient_bytes || work->point.per_gpu_batch <= 0) continue;
    if (!anchor || work->point.world_size > anchor->point.world_size) anchor = work;
  }
  if (!anchor || !base) return std::nullopt;
  SeriesProjection projection;
  projection.config_label = anchor->point.config_label;
  projection.curve_source = curve.source + " (world size " + std::to_string(curve.world_size) + ")";
  if (inter_node_curve) {
    projection.curve_source += "; across nodes " + inter_node_curve->source + " (world size " +
                               std::to_string(inter_node_curve->world_size) + ", " +
                               std::to_string(inter_node_curve->hosts) + " hosts)";
  }
  ProjectionModel& model = projection.model;
  model.strong = strong;
  model.global_batch = anchor->point.global_batch;
  model.per_rank_batch = anchor->point.per_gpu_batch;
  model.anchor_world_size = anchor->point.world_size;
  model.compute_ms_per_sample =
      (anchor->point.step_ms.median - anchor->comm_exposed_ms) / anchor->point.per_gpu_batch;
  model.gradient_bytes = *anchor->gradient_bytes;
  model.bucket_bytes = anchor->bucket_cap_mb ? *anchor->bucket_cap_mb * 1024 * 1024 : 0;
  model.curve = curve;
  if (inter_node_curve) model.inter_node_curve = *inter_node_curve;
  if (anchor->point.nodes > 0)
    model.ranks_per_node = anchor->point.world_size / anchor->point.nodes;
  model.overlap_fraction =
      overlap_fraction(anchor->comm_exposed_ms, model.gradient_bytes, model.bucket_bytes,
                       model.anchor_world_size, curve_for(model, model.anchor_world_size));
  model.base_world_size = base->point.world_size;
  model.base_throughput_samples_per_s = base->point.throughput_samples_per_s.median;
  model.base_step_ms = base->point.step_ms.median;
  if (in_tokens && !base->measured.empty() && base->measured.front()->tokens_per_sample) {
    model.units_per_sample = *base->measured.front()->tokens_per_sample;
  }
  std::set<int> world_sizes(targets.begin(), targets.end());
  for (const auto* work : series) world_sizes.insert(work->point.world_size);
  for (int world_size : world_sizes) {
    ProjectedPoint point = project(model, world_size);
    for (const auto* work : series) {
      if (work->point.world_size != world_size) continue;
      point.measured_step_ms = work->point.step_ms.median;
      point.error_pct = (point.step_ms - *point.measured_step_ms) / *point.measured_step_ms * 100;
    }
    projection.points.push_back(point);
  }
  return projection;
}

}  // namespace

void add_projections(const std::vector<PointWork>& points,
                     const std::vector<BandwidthCurve>& curves, const std::vector<int>& targets,
                     Report& report) {
  if (report.kind != "strong" && report.kind != "weak") {
    report.warnings.push_back("--project: only strong and weak studies are projected");
    return;
  }
  const int largest_target = *std::max_element(targets.begin(), targets.end());
  const BandwidthCurve* one_host = nearest_curve(curves, largest_target, CurveSpan::kOneHost);
  const BandwidthCurve* several_hosts =
      nearest_curve(curves, largest_target, CurveSpan::kSeveralHosts);
  const BandwidthCurve* curve = one_host ? one_host : several_hosts;
  const BandwidthCurve* inter_node_curve = one_host ? several_hosts : nullptr;
  if (!curve) {
    report.warnings.push_back(
        "--project: no all-reduce bandwidth curve; run an all-reduce sweep "
        "(studies/allreduce-sweep.yaml) in the study or pass --comm-model");
    return;
  }
  std::map<std::string, std::vector<const PointWork*>> series;
  for (const auto& work : points) {
    if (!work.point.run_ids.empty()) series[work.point.config_label].push_back(&work);
  }
  for (const auto& [label, members] : series) {
    auto projection = project_series(members, *curve, inter_node_curve, report.kind == "strong",
                                     targets, report.throughput_unit == "tokens");
    if (projection && !several_hosts && projection->model.ranks_per_node > 0 &&
        largest_target > projection->model.ranks_per_node) {
      report.warnings.push_back(
          "--project: series " + label +
          " is projected across nodes with an all-reduce "
          "measured on one host: inter-node links are assumed as fast as intra-node ones "
          "(measure an all-reduce on 2+ nodes to ground it)");
    }
    if (projection) {
      report.projections.push_back(std::move(*projection));
    } else {
      report.warnings.push_back("--project: series " + label +
                                " has no measured point with gradient bytes");
    }
  }
}

}  // namespace scalestudy::results
