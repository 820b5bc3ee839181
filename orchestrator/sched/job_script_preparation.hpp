// A run's job script as the batch backends submit it: the render context of a prepared
// run (workload binary, launch helper, profile wrapper) and the script written to
// <out_dir>/job.sbatch beside the workload's command line. Every backend prepares through
// this; `scalestudy plan --emit-scripts` renders the same text. Stateless.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

// The whole job script of `spec`; an error when a path cannot go into a script.
Result<std::string> render_job_script(const RunSpec& spec, const RunPreparation& preparation);

// Writes the run's rendered files (workload.files) into `dir`, each as `prefix` + its name,
// ${run_dir} in them the run's folder `out_dir` (escaped for the file's kind).
Status write_run_files(const RunSpec& spec, const std::string& out_dir, const std::string& dir,
                       const std::string& prefix = "");

// Writes <out_dir>/job.sbatch and the run's rendered files, and builds the workload argv.
Result<PreparedRun> prepare_job_script(const RunSpec& spec, const RunPreparation& preparation);

}  // namespace scalestudy::sched
