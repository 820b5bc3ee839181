#include "orchestrator/results/analysis/projection.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace scalestudy::results {

double bucketed_allreduce_ms(double gradient_bytes, double bucket_bytes, int ranks,
                             const BandwidthCurve& curve) {
  if (ranks <= 1 || gradient_bytes <= 0) return 0;
  if (bucket_bytes <= 0 || bucket_bytes > gradient_bytes) bucket_bytes = gradient_bytes;
  const double full_buckets = std::floor(gradient_bytes / bucket_bytes);
  const double remainder_bytes = gradient_bytes - full_buckets * bucket_bytes;
  auto bucket_ms = [&](double bytes) {
    return allreduce_time_ms(bytes, ranks, interpolate_busbw_gbps(curve, bytes).value_or(0));
  };
  return full_buckets * bucket_ms(bucket_bytes) +
         (remainder_bytes > 0 ? bucket_ms(remainder_bytes) : 0);
}

double overlap_fraction(double exposed_comm_ms, double gradient_bytes, double bucket_bytes,
                        int ranks, const BandwidthCurve& curve) {
  const double modelled_ms = bucketed_allreduce_ms(gradient_bytes, bucket_bytes, ranks, curve);
  if (modelled_ms <= 0) return 0;
  return std::clamp(1 - exposed_comm_ms / modelled_ms, 0.0, 1.0);
}

const BandwidthCurve& curve_for(const ProjectionModel& model, int world_size) {
  const bool spans_nodes = model.ranks_per_node > 0 && world_size > model.ranks_per_node;
  return spans_nodes && model.inter_node_curve ? *model.inter_node_curve : model.curve;
}

ProjectedPoint project(const ProjectionModel& model, int world_size) {
  ProjectedPoint point;
  point.world_size = world_size;
  point.per_rank_batch =
      model.strong ? static_cast<double>(model.global_batch) / world_size : model.per_rank_batch;
  point.compute_ms = model.compute_ms_per_sample * point.per_rank_batch;
  point.allreduce_ms = bucketed_allreduce_ms(model.gradient_bytes, model.bucket_bytes, world_size,
                                             curve_for(model, world_size));
  point.exposed_comm_ms = (1 - model.overlap_fraction) * point.allreduce_ms;
  point.step_ms = point.compute_ms + point.exposed_comm_ms;
  if (point.step_ms <= 0) return point;
  point.throughput_samples_per_s =
      model.units_per_sample * point.per_rank_batch * world_size / (point.step_ms / 1e3);
  if (model.strong && model.base_throughput_samples_per_s > 0) {
    point.efficiency = point.throughput_samples_per_s * model.base_world_size /
                       (model.base_throughput_samples_per_s * world_size);
  } else if (!model.strong) {
    point.efficiency = model.base_step_ms / point.step_ms;
  }
  return point;
}

std::optional<std::vector<int>> parse_world_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty() || item.size() > 9 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    const int size = std::stoi(item);
    if (size < 1) return std::nullopt;
    sizes.push_back(size);
  }
  if (sizes.empty()) return std::nullopt;
  return sizes;
}

}  // namespace scalestudy::results
