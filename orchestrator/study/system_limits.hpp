// The check of a study's runs against the limits of the system they are planned on (nodes
// per run, time per job, GPUs, cores and memory per node), made while the study loads, so
// `plan`, `validate` and `submit` refuse a run over a limit before anything is submitted.
// Each error is placed where the study asks for too much (its scale point, slurm.time,
// slurm.mem) and names the system file's line that sets the limit. Pure.
#pragma once

#include <vector>

#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/run_spec.hpp"
#include "orchestrator/study/study_system.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy {

// What of the study template the check points at: its scale points and where the run
// settings were written. Taken before the template is expanded.
struct LimitSources {
  std::vector<ScalePoint> scale;
  std::map<std::string, SourceLocation> field_locations;
  SourceLocation fallback;  // the study's name: where an unplaced problem is reported
};

void check_system_limits(const std::vector<RunSpec>& runs, const LimitSources& sources,
                         const StudySystem& system, Diagnostics& diagnostics);

}  // namespace scalestudy
