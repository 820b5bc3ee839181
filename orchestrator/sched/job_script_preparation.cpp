#include "orchestrator/sched/job_script_preparation.hpp"

#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/py_spy_lookup.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/study/workload_files.hpp"

namespace scalestudy::sched {
namespace {

RenderContext render_context(const RunSpec& spec, const RunPreparation& preparation) {
  RenderContext render;
  render.out_dir = preparation.out_dir;
  render.binary_path = resolve_workload_binary(spec.workload, preparation.bin_dir);
  render.launch_helper_path = preparation.bin_dir + "/scalestudy-launch";
  if (spec.launcher == LauncherKind::kTorchrun && hang_watch_on(spec)) {
    render.py_spy_path = submitter_py_spy();
  }
  render.profile_wrapper = preparation.profile.wrapper;
  return render;
}

Result<std::string> checked_script(const RunSpec& spec, const RenderContext& render) {
  if (Status checked = check_render_context(render); !checked) return checked;
  return render_sbatch_script(spec, render);
}

}  // namespace

Status write_run_files(const RunSpec& spec, const std::string& out_dir, const std::string& dir,
                       const std::string& prefix) {
  for (const auto& [name, content] : spec.files) {
    const std::string path = dir + "/" + prefix + name;
    // Like the job script: a symlink in a run folder of the job's user is replaced.
    Status written = common::write_file_replacing(
        path, with_run_dir(content, escaped_for_file(name, out_dir)), 0644);
    if (!written) return written.with_context("writing the run's file " + name);
  }
  return Status::ok();
}

Result<std::string> render_job_script(const RunSpec& spec, const RunPreparation& preparation) {
  return checked_script(spec, render_context(spec, preparation));
}

Result<PreparedRun> prepare_job_script(const RunSpec& spec, const RunPreparation& preparation) {
  const RenderContext render = render_context(spec, preparation);
  auto text = checked_script(spec, render);
  if (!text) return text.status();
  PreparedRun run;
  run.spec = spec;
  run.out_dir = preparation.out_dir;
  run.script_path = preparation.out_dir + "/job.sbatch";
  run.workload_argv = workload_argv(spec, render.binary_path, preparation.out_dir);
  // The run's folder may belong to the job's user: their symlink is replaced, not followed.
  if (Status written = common::write_file_replacing(run.script_path, *text, 0644); !written) {
    return written.with_context("writing the job script");
  }
  if (Status files = write_run_files(spec, run.out_dir, run.out_dir); !files) return files;
  return run;
}

}  // namespace scalestudy::sched
