#include "orchestrator/study/scale_section.hpp"

#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kScalePointKeys = {"nodes", "gpus_per_node", "ranks_per_node"};

// A whole number of ranks on nodes of `per_node` slots: fill nodes, all equally.
std::optional<ScalePoint> total_ranks_point(const ConfigNode& item, const std::string& field,
                                            int total, const NodeDefaults& node_defaults,
                                            Diagnostics& diagnostics) {
  bool gpu = node_defaults.gpus_per_node > 0;
  int per_node = gpu ? node_defaults.gpus_per_node : node_defaults.ranks_per_node;
  ScalePoint point{1, total, gpu, item.location};
  if (per_node > 0 && total > per_node) {
    if (total % per_node != 0) {
      std::string unit = gpu ? "gpus_per_node" : "ranks_per_node";
      diagnostics.add(item.location, field,
                      std::to_string(total) + " does not fill whole nodes of " +
                          std::to_string(per_node) + " (" + unit + "); give {nodes: N, " + unit +
                          ": K} instead");
      return std::nullopt;
    }
    point.nodes = total / per_node;
    point.tasks_per_node = per_node;
  }
  return point;
}

// {nodes: N, gpus_per_node: K} or {nodes: N, ranks_per_node: K}.
std::optional<ScalePoint> node_shape_point(const ConfigNode& item, const std::string& field,
                                           Diagnostics& diagnostics) {
  if (!expect_map(item, field, diagnostics)) return std::nullopt;
  check_keys(item, field + ".", kScalePointKeys, diagnostics);
  const ConfigNode* nodes = item.find("nodes");
  const ConfigNode* gpus = item.find("gpus_per_node");
  const ConfigNode* ranks = item.find("ranks_per_node");
  if (!nodes) diagnostics.add(item.location, field + ".nodes", "missing");
  if (!gpus == !ranks) {
    diagnostics.add(item.location, field, "give exactly one of gpus_per_node and ranks_per_node");
    return std::nullopt;
  }
  auto node_count = nodes ? read_integer(*nodes, field + ".nodes", 1, diagnostics) : std::nullopt;
  auto per_node = gpus ? read_integer(*gpus, field + ".gpus_per_node", 1, diagnostics)
                       : read_integer(*ranks, field + ".ranks_per_node", 1, diagnostics);
  if (!node_count || !per_node) return std::nullopt;
  return ScalePoint{int(*node_count), int(*per_node), gpus != nullptr, item.location};
}

}  // namespace

std::vector<ScalePoint> read_scale_section(const ConfigNode& document, StudyKind kind,
                                           const NodeDefaults& node_defaults,
                                           Diagnostics& diagnostics) {
  const ConfigNode* scale = document.find("scale");
  if (!scale) {
    if (kind == StudyKind::kStrong || kind == StudyKind::kWeak) {
      diagnostics.add(document.location, "scale",
                      std::string("missing: a ") + study_kind_name(kind) +
                          " study needs the GPU (or rank) counts to run");
    }
    return {ScalePoint{1, 1, node_defaults.gpus_per_node > 0, document.location}};
  }
  std::vector<ScalePoint> points;
  size_t index = 0;
  for (const ConfigNode* item : read_list(*scale, "scale", diagnostics, SingleValue::kListOfOne)) {
    std::string field = indexed_field("scale", index++);
    std::optional<ScalePoint> point;
    if (item->is_scalar()) {
      if (auto total = read_integer(*item, field, 1, diagnostics)) {
        point = total_ranks_point(*item, field, int(*total), node_defaults, diagnostics);
      }
    } else {
      point = node_shape_point(*item, field, diagnostics);
    }
    if (point) points.push_back(*point);
  }
  return points;
}

}  // namespace scalestudy
