// MetricSpec: one figure a study extracts, for programs that do not write a run database,
// from each rank's captured output (stdout and stderr) with a regular expression, or from
// a file the program writes in its run folder: a pattern over a text file, a CSV column, a
// field of JSON lines, or a path into a JSON document. The study's `metrics:` section
// declares them; results/output_metrics applies them at ingest. Plain value types and
// pure functions.
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

// Where a metric's numbers are read, in what they appear in order (each a "match").
enum class MetricSource {
  kRankLog,    // `pattern` over rank<RANK>.log
  kText,       // `pattern` over `file`, line by line
  kCsv,        // column `key` of the CSV `file` (a header row; empty cells skipped)
  kJsonLines,  // field `key` (a JSON path) of each line of `file` holding it
  kJson,       // the number (or list of numbers) at JSON path `key` in `file`
};

struct MetricSpec {
  std::string name;     // identifier, unique in the study
  std::string pattern;  // RE2 syntax with exactly one capture group: the number
  MetricSource source = MetricSource::kRankLog;
  // A path relative to the run folder; "${rank}" in it is each rank's own file, without it
  // the file is rank 0's (the only rank read).
  std::string file;
  std::string key;   // kCsv: the column; kJsonLines, kJson: the JSON path
  std::string unit;  // free text ("img/s", "ms", "s", "%", "MiB"); converts times/bytes
  MetricOccurrence occurrence = MetricOccurrence::kLast;
  int skip_first = 0;  // kAll: matches skipped as warm-up, per rank
  MetricReduction reduction = MetricReduction::kRank0;
  MetricRole role = MetricRole::kNone;
};

// Names as the study language spells them, every one of each, in enum order.
const std::vector<std::string>& metric_occurrence_names();
const std::vector<std::string>& metric_reduction_names();
const std::vector<std::string>& metric_role_names();
// The study's key that selects each source ("pattern", "pattern", "column", "field", "path").
const char* metric_source_key(MetricSource source);
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
