#include "orchestrator/study/metric_spec.hpp"

#include <algorithm>

namespace scalestudy {
namespace {

template <typename Enum>
Result<Enum> parse_name(const std::vector<std::string>& names, const std::string& name,
                        const char* what) {
  auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end())
    return Status::error("unknown metric " + std::string(what) + " '" + name + "'");
  return static_cast<Enum>(found - names.begin());
}

}  // namespace

const std::vector<std::string>& metric_occurrence_names() {
  static const std::vector<std::string> kNames = {"last", "all"};
  return kNames;
}
const std::vector<std::string>& metric_reduction_names() {
  static const std::vector<std::string> kNames = {"sum", "max", "min", "mean", "rank0"};
  return kNames;
}
const std::vector<std::string>& metric_role_names() {
  static const std::vector<std::string> kNames = {
      "none", "throughput", "step_time", "epoch_time", "val_accuracy", "loss", "memory"};
  return kNames;
}
const char* metric_occurrence_name(MetricOccurrence occurrence) {
  return metric_occurrence_names()[static_cast<size_t>(occurrence)].c_str();
}
const char* metric_reduction_name(MetricReduction reduction) {
  return metric_reduction_names()[static_cast<size_t>(reduction)].c_str();
}
const char* metric_role_name(MetricRole role) {
  return metric_role_names()[static_cast<size_t>(role)].c_str();
}
Result<MetricRole> parse_metric_role(const std::string& name) {
  return parse_name<MetricRole>(metric_role_names(), name, "role");
}

const char* metric_source_key(MetricSource source) {
  switch (source) {
    case MetricSource::kRankLog:
    case MetricSource::kText:
      return "pattern";
    case MetricSource::kCsv:
      return "column";
    case MetricSource::kJsonLines:
      return "field";
    case MetricSource::kJson:
      return "path";
  }
  return "pattern";
}

nlohmann::json metric_specs_to_json(const std::vector<MetricSpec>& specs) {
  nlohmann::json list = nlohmann::json::array();
  for (const MetricSpec& spec : specs) {
    nlohmann::json item = {{"name", spec.name},
                           {"pattern", spec.pattern},
                           {"unit", spec.unit},
                           {"occurrence", metric_occurrence_name(spec.occurrence)},
                           {"skip_first", spec.skip_first},
                           {"reduce", metric_reduction_name(spec.reduction)},
                           {"role", metric_role_name(spec.role)}};
    if (spec.source != MetricSource::kRankLog) {  // rank-log metrics stored as they were
      item["file"] = spec.file;
      item["source"] = static_cast<int>(spec.source);
      item["key"] = spec.key;
    }
    list.push_back(std::move(item));
  }
  return list;
}

Result<std::vector<MetricSpec>> metric_specs_from_json(const nlohmann::json& json) {
  std::vector<MetricSpec> specs;
  if (json.is_null()) return specs;
  if (!json.is_array()) return Status::error("metrics: expected a JSON list");
  try {
    for (const auto& item : json) {
      MetricSpec spec;
      spec.name = item.at("name").get<std::string>();
      spec.pattern = item.at("pattern").get<std::string>();
      spec.unit = item.at("unit").get<std::string>();
      spec.skip_first = item.at("skip_first").get<int>();
      auto occurrence = parse_name<MetricOccurrence>(
          metric_occurrence_names(), item.at("occurrence").get<std::string>(), "occurrence");
      auto reduction = parse_name<MetricReduction>(
          metric_reduction_names(), item.at("reduce").get<std::string>(), "reduction");
      auto role = parse_metric_role(item.at("role").get<std::string>());
      if (!occurrence) return occurrence.status();
      if (!reduction) return reduction.status();
      if (!role) return role.status();
      spec.occurrence = *occurrence;
      spec.reduction = *reduction;
      spec.role = *role;
      if (item.contains("file")) {
        const int source = item.at("source").get<int>();
        if (source <= 0 || source > static_cast<int>(MetricSource::kJson)) {
          return Status::error("metrics: unknown source " + std::to_string(source));
        }
        spec.source = static_cast<MetricSource>(source);
        spec.file = item.at("file").get<std::string>();
        spec.key = item.at("key").get<std::string>();
      }
      specs.push_back(std::move(spec));
    }
  } catch (const nlohmann::json::exception& error) {
    return Status::error(std::string("metrics: ") + error.what());
  }
  return specs;
}

}  // namespace scalestudy
