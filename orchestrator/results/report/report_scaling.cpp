#include "orchestrator/results/report/report_scaling.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "orchestrator/results/analysis/efficiency.hpp"

namespace scalestudy::results {
namespace {

void predict_communication(PointWork& work, const PointWork& base,
                           const std::vector<BandwidthCurve>& curves) {
  ReportPoint& point = work.point;
  if (point.run_ids.empty() || base.point.run_ids.empty() || !work.gradient_bytes) return;
  if (base.point.per_gpu_batch <= 0 || point.per_gpu_batch <= 0) return;
  // A run on several nodes is compared with an all-reduce across hosts when there is one.
  const BandwidthCurve* curve = nearest_curve(
      curves, point.world_size, point.nodes > 1 ? CurveSpan::kSeveralHosts : CurveSpan::kOneHost);
  if (!curve) curve = nearest_curve(curves, point.world_size);
  if (!curve) return;
  // A bucket holds at most the cap, and no more than all the gradients.
  const double message_bytes =
      work.bucket_cap_mb ? std::min(*work.bucket_cap_mb * 1024 * 1024, *work.gradient_bytes)
                         : *work.gradient_bytes;
  auto busbw = interpolate_busbw_gbps(*curve, message_bytes);
  if (!busbw) return;
  // The base's compute per sample: its step without the exposed all-reduce wait.
  const double compute_ms_per_sample =
      (base.point.step_ms.median - base.comm_exposed_ms) / base.point.per_gpu_batch;
  point.comm = predict_step(compute_ms_per_sample, point.per_gpu_batch, point.world_size,
                            *work.gradient_bytes, *busbw, point.step_ms.median);
  point.comm_curve_source =
      curve->source + " (world size " + std::to_string(curve->world_size) + ")";
}

}  // namespace

void apply_scaling(std::vector<PointWork>& points, const Report& report,
                   const std::vector<BandwidthCurve>& curves) {
  std::map<std::string, const PointWork*> base_by_series;
  for (const auto& work : points) {
    if (work.point.run_ids.empty()) continue;
    auto& base = base_by_series[work.point.config_label];
    if (matches(work.point, report.baseline, true) &&
        (!base || !matches(base->point, report.baseline, true))) {
      base = &work;
    } else if (!base) {
      base = &work;
    }
  }
  for (auto& work : points) {
    auto it = base_by_series.find(work.point.config_label);
    if (it == base_by_series.end() || work.point.run_ids.empty()) continue;
    const ReportPoint& base = it->second->point;
    ReportPoint& point = work.point;
    point.is_baseline = &it->second->point == &point;
    // No figure on either side is no speedup, not a speedup of 0.
    const bool throughputs =
        base.throughput_samples_per_s.count > 0 && point.throughput_samples_per_s.count > 0;
    if (report.kind == "strong" && throughputs) {
      point.speedup = strong_speedup(base.throughput_samples_per_s.median,
                                     point.throughput_samples_per_s.median);
      point.efficiency = strong_efficiency(base.throughput_samples_per_s.median, base.world_size,
                                           point.throughput_samples_per_s.median, point.world_size);
    } else if (report.kind == "weak" && base.step_ms.median > 0 && point.step_ms.median > 0) {
      point.efficiency = weak_efficiency(base.step_ms.median, point.step_ms.median);
    }
    set_memory_ratio(point, base);
    predict_communication(work, *it->second, curves);
  }
}

}  // namespace scalestudy::results
