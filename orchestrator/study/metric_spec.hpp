// MetricSpec: one figure a study extracts from each rank's captured output (stdout and
// stderr) with a regular expression, for programs that do not write a run database. The
// study's `metrics:` section declares them; results/output_metrics applies them at
// ingest. Plain value types and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

// Which matches of a rank's output count.
enum class MetricOccurrence {
  kLast,  // the last match
  kAll,   // the median of every match after the first `skip_first` (warm-up)
};

// How the per-rank values become the run's value.
enum class MetricReduction { kSum, kMax, kMin, kMean, kRank0 };

// What the report does with the figure.
enum class MetricRole {
  kNone,         // shown, not interpreted
  kThroughput,   // samples per second: speedup and efficiency
  kStepTime,     // time per training step
  kEpochTime,    // time per epoch
  kValAccuracy,  // validation accuracy (a fraction, or a percentage with unit %)
  kLoss,
  kMemory,  // bytes (or a byte unit: KiB, MiB, GiB, KB, MB, GB)
};

struct MetricSpec {
  std::string name;     // identifier, unique in the study
  std::string pattern;  // RE2 syntax with exactly one capture group: the number
  std::string unit;     // free text ("img/s", "ms", "s", "%", "MiB"); converts times/bytes
  MetricOccurrence occurrence = MetricOccurrence::kLast;
  int skip_first = 0;  // kAll: matches skipped as warm-up, per rank
  MetricReduction reduction = MetricReduction::kRank0;
  MetricRole role = MetricRole::kNone;
};

// Names as the study language spells them, every one of each, in enum order.
const std::vector<std::string>& metric_occurrence_names();
const std::vector<std::string>& metric_reduction_names();
const std::vector<std::string>& metric_role_names();
const char* metric_occurrence_name(MetricOccurrence occurrence);
const char* metric_reduction_name(MetricReduction reduction);
const char* metric_role_name(MetricRole role);

// A role by its name (as metric_role_name spells it); an error for an unknown name.
Result<MetricRole> parse_metric_role(const std::string& name);

// MetricSpecs as JSON (the spec_json the study database keeps per run) and back; reading
// fails on an unknown name or a missing field.
nlohmann::json metric_specs_to_json(const std::vector<MetricSpec>& specs);
Result<std::vector<MetricSpec>> metric_specs_from_json(const nlohmann::json& json);

}  // namespace scalestudy
