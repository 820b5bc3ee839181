#include "orchestrator/results/analysis/comm_model.hpp"

#include <cmath>
#include <cstdlib>

namespace scalestudy::results {

const BandwidthCurve* nearest_curve(const std::vector<BandwidthCurve>& curves, int world_size,
                                    CurveSpan span) {
  const BandwidthCurve* best = nullptr;
  for (const auto& curve : curves) {
    // One rank has no bus: its curve's busbw is 0 by definition and says nothing.
    if (curve.points.empty() || curve.world_size < 2) continue;
    if ((span == CurveSpan::kOneHost && curve.hosts > 1) ||
        (span == CurveSpan::kSeveralHosts && curve.hosts < 2)) {
      continue;
    }
    if (!best ||
        std::abs(curve.world_size - world_size) < std::abs(best->world_size - world_size)) {
      best = &curve;
    }
  }
  return best;
}

std::optional<double> interpolate_busbw_gbps(const BandwidthCurve& curve, double bytes) {
  const auto& points = curve.points;
  if (points.empty()) return std::nullopt;
  if (bytes <= points.front().bytes) return points.front().busbw_gbps;
  if (bytes >= points.back().bytes) return points.back().busbw_gbps;
  for (size_t i = 1; i < points.size(); ++i) {
    if (bytes <= points[i].bytes) {
      const BandwidthPoint& low = points[i - 1];
      const BandwidthPoint& high = points[i];
      const double fraction =
          (std::log(bytes) - std::log(static_cast<double>(low.bytes))) /
          (std::log(static_cast<double>(high.bytes)) - std::log(static_cast<double>(low.bytes)));
      return low.busbw_gbps + fraction * (high.busbw_gbps - low.busbw_gbps);
    }
  }
  return points.back().busbw_gbps;
}

double allreduce_time_ms(double bytes, int ranks, double busbw_gbps) {
  if (ranks <= 1 || busbw_gbps <= 0) return 0;
  const double bus_factor = 2.0 * (ranks - 1) / ranks;
  return bus_factor * bytes / (busbw_gbps * 1e9) * 1e3;
}

CommPrediction predict_step(double compute_ms_per_sample, int per_rank_batch, int ranks,
                            double gradient_bytes, double busbw_gbps, double measured_step_ms) {
  CommPrediction prediction;
  prediction.busbw_gbps = busbw_gbps;
  prediction.comm_ms = allreduce_time_ms(gradient_bytes, ranks, busbw_gbps);
  prediction.compute_ms = compute_ms_per_sample * per_rank_batch;
  prediction.predicted_step_ms = prediction.compute_ms + prediction.comm_ms;
  prediction.predicted_efficiency =
      prediction.predicted_step_ms > 0 ? prediction.compute_ms / prediction.predicted_step_ms : 0;
  prediction.measured_step_ms = measured_step_ms;
  prediction.measured_efficiency =
      measured_step_ms > 0 ? prediction.compute_ms / measured_step_ms : 0;
  return prediction;
}

}  // namespace scalestudy::results
