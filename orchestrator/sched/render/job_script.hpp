// Rendering one run for execution: the argv of its workload process (used by the local
// executor and inside every launch line) and its sbatch job script, from the template
// slurm/templates/sbatch.sh.in (compiled in). Every value that reaches the script is
// shell-quoted; the RunSpec is trusted to come from the study loader, which has already
// rejected control characters in the fields that reach #SBATCH lines. Pure functions;
// thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/run_spec.hpp"
#include "orchestrator/study/workload_command_line.hpp"

namespace scalestudy {

struct RenderContext {
  std::string out_dir;      // the run's folder: <results>/<study>/runs/<run_id>, absolute
  std::string binary_path;  // the workload binary, absolute
  // The torchrun-style per-node launcher (launcher: torchrun).
  std::string launch_helper_path = "scalestudy-launch";
  // The py-spy its hang watchdog dumps Python ranks with (sched/py_spy_lookup.hpp); empty:
  // the launcher's own search.
  std::string py_spy_path;
  // Words placed before the workload binary (a profiler); "{{out_dir}}" and "{{run_id}}"
  // inside a word are replaced. Empty: no profiler.
  std::vector<std::string> profile_wrapper;
};

// Seconds before the time limit at which SLURM signals a job (--signal): a minute to write
// results, but at most a quarter of a short limit, so a 1-minute job is not told to stop
// the moment it starts.
int term_signal_lead_seconds(int time_limit_minutes);

// Checks what the context adds to a script: paths on one line, absolute, no '"'.
Status check_render_context(const RenderContext& context);

// Whether scalestudy-launch runs its hang watchdog for `spec` (policy.hang_after not 0).
bool hang_watch_on(const RunSpec& spec);
// Its flags: --hang-after-s S where the study set policy.hang_after (0: off; unset, the
// launcher's default rule), and --py-spy PATH when the watchdog is on and one is known.
std::vector<std::string> hang_watch_flags(const RunSpec& spec, const std::string& py_spy_path);

// BINARY ARGS... then the words of workload_flag_groups() (workload_command_line.hpp):
// positional parameters, [--run-id ID --out-dir DIR], every other parameter that is not
// passed as an environment variable, in the study's flag form.
std::vector<std::string> workload_argv(const RunSpec& spec, const std::string& binary_path,
                                       const std::string& out_dir);

// The launch command of a run, as argv words: srun scalestudy-launch --srun-task
// --rank-log-dir OUT -- [container] [profiler] workload, or srun --ntasks-per-node=1
// scalestudy-launch --nproc-per-node K --rank-log-dir OUT -- [container] [profiler]
// workload. Either way every rank gets the torchrun variables and its output lands in
// OUT/rank<RANK>.log.
std::vector<std::string> launch_command(const RunSpec& spec, const RenderContext& context);

// The whole job script.
std::string render_sbatch_script(const RunSpec& spec, const RenderContext& context);

// Where a RunSpec's `workload` lives: a name is looked up in `bin_dir` (where the CLI and
// the workloads are built side by side), a path is made absolute.
std::string resolve_workload_binary(const std::string& workload, const std::string& bin_dir);

}  // namespace scalestudy
