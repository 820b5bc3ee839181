#include "orchestrator/study/batch_section.hpp"

#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

// Whether a matrix or zip group names `key` (read before the axes themselves).
bool axis_mentions(const ConfigNode& document, const std::string& key) {
  if (const ConfigNode* matrix = document.find("matrix"); matrix && matrix->find(key)) {
    return true;
  }
  if (const ConfigNode* zip = document.find("zip")) {
    if (zip->is_map()) return zip->find(key) != nullptr;
    for (const auto& group : zip->items) {
      if (group.find(key)) return true;
    }
  }
  return false;
}

// Sets study.batch_given from the fields and axes present; false (reported) when they
// contradict each other or the study's kind.
bool read_batch_given(const ConfigNode& document, StudyTemplate& study, Diagnostics& diagnostics) {
  const ConfigNode* global = document.find("global_batch");
  const ConfigNode* per_gpu = document.find("per_gpu_batch");
  const ConfigNode* matrix = document.find("matrix");
  bool gives_global = global || axis_mentions(document, "global_batch");
  bool gives_per_gpu = per_gpu || axis_mentions(document, "per_gpu_batch");
  StudyKind kind = study.info.kind;
  const ConfigNode& anchor =
      global ? *global : (per_gpu ? *per_gpu : (matrix ? *matrix : document));
  if (gives_global && gives_per_gpu) {
    diagnostics.add(
        anchor.location, gives_global && global ? "global_batch" : "per_gpu_batch",
        "give global_batch or per_gpu_batch, not both (the other follows from the scale)");
    return false;
  }
  if (kind == StudyKind::kStrong && gives_per_gpu) {
    diagnostics.add(anchor.location, "per_gpu_batch",
                    "a strong study fixes global_batch; per_gpu_batch = global_batch / GPUs");
    return false;
  }
  if (kind == StudyKind::kWeak && gives_global) {
    diagnostics.add(anchor.location, "global_batch",
                    "a weak study fixes per_gpu_batch; global_batch = GPUs x per_gpu_batch");
    return false;
  }
  if (kind == StudyKind::kStrong && !gives_global) {
    diagnostics.add(document.location, "global_batch",
                    "missing: a strong study needs global_batch");
  }
  if (kind == StudyKind::kWeak && !gives_per_gpu) {
    diagnostics.add(document.location, "per_gpu_batch",
                    "missing: a weak study needs per_gpu_batch");
  }
  if (gives_global) study.batch_given = StudyTemplate::BatchGiven::kGlobal;
  if (gives_per_gpu) study.batch_given = StudyTemplate::BatchGiven::kPerGpu;
  return true;
}

}  // namespace

void read_batch_section(const ConfigNode& document, StudyTemplate& study,
                        Diagnostics& diagnostics) {
  if (!read_batch_given(document, study, diagnostics)) return;
  if (const ConfigNode* uneven = document.find("uneven_batch")) {
    if (auto text = read_scalar(*uneven, "uneven_batch", diagnostics)) {
      if (*text == "round_down") {
        study.round_down_uneven_batch = true;
      } else if (*text != "error") {
        diagnostics.add_unknown(uneven->location, "uneven_batch", "choice", *text,
                                {"error", "round_down"});
      }
    }
  }
  const ConfigNode* global = document.find("global_batch");
  const ConfigNode* fixed = global ? global : document.find("per_gpu_batch");
  if (fixed) {
    std::string field = global ? "global_batch" : "per_gpu_batch";
    if (auto value = read_integer(*fixed, field, 1, diagnostics)) {
      study.batch = LocatedValue{std::to_string(*value), fixed->location};
    }
  }
}

}  // namespace scalestudy
