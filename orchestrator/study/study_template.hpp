// StudyTemplate: a study after validation and before expansion — every field typed and
// checked, axes and filters parsed, each value still carrying where it was written.
// Internal to orchestrator/study: parse_study_template() builds it from the merged YAML,
// expand_study() turns it into runs. Value type; not synchronised.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/run_spec.hpp"
#include "orchestrator/study/study.hpp"
#include "orchestrator/study/where_expression.hpp"

namespace scalestudy {

// A value as the study wrote it (canonical scalar text) and where.
struct LocatedValue {
  std::string text;
  SourceLocation location;
};

// One point of `scale`: how many nodes and ranks per node; one GPU per rank on GPU runs.
struct ScalePoint {
  int nodes = 1;
  int tasks_per_node = 1;
  bool gpu = false;
  SourceLocation location;
};

// A matrix axis or a zip column: a variable and the values it takes.
struct Axis {
  std::string name;
  std::string field;  // "matrix.precision", "zip[1].lr"
  SourceLocation location;
  std::vector<LocatedValue> values;
};

// A partial assignment (an `exclude` entry or the `baseline`), by variable slot.
struct Selector {
  SourceLocation location;
  std::vector<std::pair<int, LocatedValue>> slot_values;
};

struct WhereFilter {
  WhereExpression expression;
  LocatedValue text;
};

// The variables a run has, in slot order: where/exclude/baseline/${} see these.
enum BuiltinSlot : int {
  kSlotWorldSize,
  kSlotNodes,
  kSlotTasksPerNode,
  kSlotGpusPerNode,
  kSlotGlobalBatch,
  kSlotPerGpuBatch,
  kSlotRepeat,
  kSlotStudy,
  kSlotKind,
  kSlotBinary,
  kBuiltinSlotCount
};

constexpr size_t kDefaultMaxRuns = 10000;

struct StudyTemplate {
  Study info;  // everything but runs and varied_keys
  SourceLocation name_location;

  LocatedValue binary;
  std::map<std::string, LocatedValue> params;  // canonical text; no batch_size
  // workload.files: file name in the run folder -> its template (workload_files.hpp).
  std::map<std::string, LocatedValue> files;

  std::vector<ScalePoint> scale;
  // The batch the study gives: global (strong; or sensitivity/custom giving global_batch)
  // or per GPU (weak; or giving per_gpu_batch). Either as a fixed value or as an axis.
  enum class BatchGiven { kNone, kGlobal, kPerGpu } batch_given = BatchGiven::kNone;
  std::optional<LocatedValue> batch;
  // `uneven_batch: round_down`: a global batch that does not divide over the ranks gives
  // floor(global / ranks) per rank (the run's global_batch is then per rank x ranks).
  bool round_down_uneven_batch = false;

  std::vector<Axis> matrix;             // cartesian, first axis outermost
  std::vector<std::vector<Axis>> zips;  // each group advances in lock-step
  std::vector<Selector> excludes;
  std::vector<WhereFilter> wheres;
  int repeats = 1;
  std::optional<Selector> baseline;
  // The most runs the study may expand to (`max_runs`), checked before expanding so a
  // mistyped matrix is an error, not an exhausted machine.
  size_t max_runs = kDefaultMaxRuns;
  std::optional<SourceLocation> max_runs_location;

  // Variable names by slot: the builtins, then every parameter (sorted).
  std::vector<std::string> slot_names;
  std::map<std::string, int> param_slots;

  // The run settings every run shares before ${} substitution.
  RunSpec shared;
  // Where each string field of `shared` was written ("slurm.partition", "env.X",
  // "modules[0]", "container.binds[1]", "workload.binary"), for substitution errors.
  std::map<std::string, SourceLocation> field_locations;
};

// Validates the merged study document; errors go to `diagnostics`.
StudyTemplate parse_study_template(const ConfigNode& document, Diagnostics& diagnostics);

}  // namespace scalestudy
