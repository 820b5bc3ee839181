// Study: a study file fully read, validated and expanded — its identity, the settings the
// other modules need (baseline, report, retry policy) and every run it plans. Produced by
// load_study(); a plain value type, not synchronised.
//
// The YAML language is described in studies/README.md. Loading rejects the whole study on
// any error and reports every error it found, one per line, as "file:line:column: field
// 'x': message".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/retry_policy.hpp"
#include "orchestrator/study/run_spec.hpp"
#include "orchestrator/study/source_location.hpp"
#include "orchestrator/study/study_system.hpp"

namespace scalestudy {

struct StudyReportSettings {
  std::optional<double> target_gain_pct;     // sensitivity: the gain a setting must reach
  std::map<std::string, double> thresholds;  // named thresholds for the report
  // What throughput counts: "samples" (unset) or "tokens" (samples × the runs'
  // tokens_per_sample: a language model's figures).
  std::string throughput_unit;
  // For runs that record no tokens_per_sample (a program measured by its output): a whole
  // number, or the name of the parameter that gives it per run; empty: none.
  std::string tokens_per_sample;
};

struct Study {
  std::string name;
  StudyKind kind = StudyKind::kCustom;
  std::string description;
  std::string source_path;  // the study file, absolute (empty for text loaded from memory)
  // The reference point of efficiency tables: variable -> value (e.g. {"world_size": "1"}).
  // Empty: the smallest world size.
  std::map<std::string, std::string> baseline;
  StudyReportSettings report;
  int max_attempts = 3;    // submissions of a run before it counts as failed
  RetryPolicy retry;       // `policy:`: retries by failure class
  int array_throttle = 0;  // most array tasks running at once; 0: no limit
  // `allocation: packed`: the sweep runs as job steps of one allocation (studies/README.md).
  bool packed_allocation = false;
  // `pack: {policy}`: a packed allocation's steps side by side on disjoint nodes (true), or
  // one after another; serial by default for strong studies, concurrent otherwise.
  bool pack_concurrent = false;
  // `budget: {gpu_hours: H}`: submit refuses a sweep whose requested GPU-hours exceed it.
  std::optional<double> budget_gpu_hours;
  // The labels of the systems the runs are planned on, in the order chosen; empty when the
  // study was loaded without systems.
  std::vector<std::string> systems;
  std::vector<RunSpec> runs;
  // The keys of RunSpec::varied across all runs, in display order.
  std::vector<std::string> varied_keys;
  // Where each workload parameter's values are written: parameter -> value -> its
  // `workload:` entry or matrix/zip item, so a check of a run's parameters can point there.
  std::map<std::string, std::map<std::string, SourceLocation>> param_value_locations;
};

// With `systems` (study_system.hpp), the study is planned on each system it chooses: each
// system's keys lie beneath the study's, every run is checked against its system's limits,
// and with several systems `system` is the first varied key.
Result<Study> load_study(const std::string& path, const StudySystemChoice& systems = {});
// For tests and tools: `display_path` names the text in errors and anchors `extends`.
Result<Study> load_study_text(const std::string& yaml_text, const std::string& display_path,
                              const StudySystemChoice& systems = {});

}  // namespace scalestudy
