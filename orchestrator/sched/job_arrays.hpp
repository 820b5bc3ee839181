// Grouping runs into SLURM job arrays. Two runs have the same shape when their rendered
// scripts ask for the same allocation: the same #SBATCH directives once the per-run ones
// (job name, output, error) are set aside. A group of two or more becomes one
// `--array=0-K%throttle` job whose wrapper script runs, in task i, the i-th run's own
// rendered script (its launch line, modules, container and profile unchanged), with its
// output in that run's directory. Pure functions over script text.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

// Every `#SBATCH` word of a script, in order ("--nodes=2", "-t", "5" as written).
std::vector<std::string> sbatch_directives(const std::string& script_text);

// The `#SBATCH` options of a script, in order ("--nodes=2", "-t", "5" stay as written),
// excluding the ones that name a single run: --job-name/-J, --output/-o, --error/-e,
// --array/-a.
std::vector<std::string> allocation_directives(const std::string& script_text);

// allocation_directives of the script at `path` (none when it cannot be read).
std::vector<std::string> script_allocation_directives(const std::string& path);

// Indices of `runs` grouped by shape, groups in order of first appearance.
Result<std::vector<std::vector<size_t>>> group_by_shape(const std::vector<PreparedRun>& runs);

// The wrapper script for one array over `runs` (all of one shape).
std::string array_wrapper_script(const std::vector<const PreparedRun*>& runs,
                                 const std::vector<std::string>& directives,
                                 const std::string& job_name, const std::string& output_pattern);

// "--array=0-5%2" (throttle 0: no %).
std::string array_option(size_t task_count, int throttle);

// The job name for an array over these runs: "<study>-array".
std::string array_job_name(const PreparedRun& first);

}  // namespace scalestudy::sched
