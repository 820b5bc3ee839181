// A system as the study loader uses it (the system files themselves are read by
// orchestrator/systems): the study keys it sets beneath the study's own, what each of its
// runs records, and the limits every run must fit. And how a load chooses its systems: the
// labels given on the command line, a resolver for labels, and the system used when neither
// the study nor the command line names one. Plain data and callbacks; not synchronised.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/run_spec.hpp"
#include "orchestrator/study/source_location.hpp"

namespace scalestudy {

// A limit of a system and where its file states it.
struct SystemLimit {
  long long value = 0;
  std::string field;  // "limits.max_nodes", "node.gpus", ...
  SourceLocation location;
};

struct StudySystem {
  RunSystem run;  // copied into every run planned on the system
  // Study-language keys (slurm, modules, container, env) carrying the system file's
  // locations; the study document is merged over it, so the study's own keys win.
  ConfigNode overlay;
  std::optional<SystemLimit> max_nodes, max_time_minutes, gpus_per_node, cores_per_node, memory_mb;
};

// The resolver's answer for a label; its error is placed at the label by the loader.
using SystemResolver = std::function<Result<StudySystem>(const std::string& label)>;

struct StudySystemChoice {
  // --system, in order; when not empty they replace the study's `systems:`.
  std::vector<std::string> labels;
  SystemResolver resolve;  // null: `systems:` and labels are an error
  // The system of a study that names none (the one detected, else `local`), recorded with
  // each run and nothing more; null, nullopt or an error: the runs get no system.
  std::function<Result<std::optional<StudySystem>>()> implicit;
};

}  // namespace scalestudy
