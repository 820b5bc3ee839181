// parse_study_template(): the study language's schema. The top-level keys and the study's
// identity are read here; every other part has its section reader (*_section.cpp), called
// in an order where each finds what it depends on read already. Every problem is reported
// with its location and field, and reading continues so one pass shows every error.
#include <algorithm>
#include <cctype>
#include <set>

#include "orchestrator/study/allocation_section.hpp"
#include "orchestrator/study/axes_section.hpp"
#include "orchestrator/study/batch_section.hpp"
#include "orchestrator/study/environment_section.hpp"
#include "orchestrator/study/filters_section.hpp"
#include "orchestrator/study/metrics_section.hpp"
#include "orchestrator/study/policy_section.hpp"
#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/scale_section.hpp"
#include "orchestrator/study/schema_values.hpp"
#include "orchestrator/study/slurm_section.hpp"
#include "orchestrator/study/study_name.hpp"
#include "orchestrator/study/study_template.hpp"
#include "orchestrator/study/study_variables.hpp"
#include "orchestrator/study/target_section.hpp"
#include "orchestrator/study/workload_section.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kTopLevelKeys = {
    "study",         "kind",    "description",  "workload",       "scale",     "global_batch",
    "per_gpu_batch", "matrix",  "zip",          "exclude",        "where",     "repeats",
    "baseline",      "slurm",   "launcher",     "modules",        "container", "env",
    "profile",       "report",  "max_attempts", "array_throttle", "extends",   "defaults",
    "uneven_batch",  "metrics", "budget",       "max_runs",       "target",    "allocation",
    "systems",       "pack",    "policy",       "env_passthrough"};

// `study` (the name), `kind` and `description`.
void read_identity(const ConfigNode& document, StudyTemplate& study, Diagnostics& diagnostics) {
  const ConfigNode* name = document.find("study");
  if (!name) {
    diagnostics.add(document.location, "study", "missing: every study needs a name");
  } else if (auto text = read_scalar(*name, "study", diagnostics)) {
    if (!is_study_name(*text)) {
      diagnostics.add(name->location, "study",
                      "'" + *text +
                          "' is not a valid name: it names a results folder, so use letters, "
                          "digits, '-', '_' and '.', starting with a letter or digit");
    }
    study.info.name = *text;
    study.name_location = name->location;
  }
  study.info.kind = StudyKind::kCustom;
  if (const ConfigNode* kind = document.find("kind")) {
    if (auto text = read_scalar(*kind, "kind", diagnostics)) {
      if (auto parsed = parse_study_kind(*text)) {
        study.info.kind = *parsed;
      } else {
        diagnostics.add_unknown(kind->location, "kind", "kind", *text,
                                {"strong", "weak", "sensitivity", "custom"});
      }
    }
  }
  if (const ConfigNode* description = document.find("description")) {
    if (auto text = read_scalar(*description, "description", diagnostics)) {
      study.info.description = *text;
    }
  }
}

// The variables in slot order: the builtins, then every parameter and axis name (sorted).
void build_slots(StudyTemplate& study) {
  study.slot_names = builtin_slot_names();
  std::set<std::string> names;
  for (const auto& [name, value] : study.params) names.insert(name);
  for (const auto& axis : study.matrix) names.insert(axis.name);
  for (const auto& group : study.zips) {
    for (const auto& axis : group) names.insert(axis.name);
  }
  names.erase("global_batch");
  names.erase("per_gpu_batch");
  for (const auto& name : names) {
    study.param_slots[name] = static_cast<int>(study.slot_names.size());
    study.slot_names.push_back(name);
  }
}

}  // namespace

StudyTemplate parse_study_template(const ConfigNode& document, Diagnostics& diagnostics) {
  StudyTemplate study;
  check_keys(document, "", kTopLevelKeys, diagnostics);
  read_identity(document, study, diagnostics);
  study.binary = {"scalestudy-train", document.location};
  if (const ConfigNode* workload = document.find("workload")) {
    read_workload_section(*workload, study, diagnostics);
  }
  read_target_section(document, study, diagnostics);
  if (const ConfigNode* metrics = document.find("metrics")) {
    study.shared.metrics = read_metrics_section(*metrics, diagnostics);
  }
  NodeDefaults node_defaults;
  if (const ConfigNode* slurm = document.find("slurm")) {
    node_defaults = read_slurm_section(*slurm, study, diagnostics);
  }
  study.scale = read_scale_section(document, study.info.kind, node_defaults, diagnostics);
  read_batch_section(document, study, diagnostics);
  read_axes_section(document, study, diagnostics);
  study.shared.study = study.info.name;
  study.shared.kind = study.info.kind;
  study.shared.workload = study.binary.text;
  read_environment_section(document, study, diagnostics);
  build_slots(study);
  read_filters_section(document, study, diagnostics);
  read_policy_section(document, study, diagnostics);
  read_allocation_section(document, study, diagnostics);
  return study;
}

}  // namespace scalestudy
