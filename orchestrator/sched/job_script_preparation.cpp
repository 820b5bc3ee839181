#include "orchestrator/sched/job_script_preparation.hpp"

#include <fstream>

#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/study/workload_files.hpp"

namespace scalestudy::sched {
namespace {

RenderContext render_context(const RunSpec& spec, const RunPreparation& preparation) {
  RenderContext render;
  render.out_dir = preparation.out_dir;
  render.binary_path = resolve_workload_binary(spec.workload, preparation.bin_dir);
  render.launch_helper_path = preparation.bin_dir + "/scalestudy-launch";
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
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << with_run_dir(content, escaped_for_file(name, out_dir));
    if (!file.flush()) return Status::error(path + ": cannot write the run's file");
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
  std::ofstream script(run.script_path, std::ios::trunc);
  script << *text;
  if (!script.flush()) return Status::error(run.script_path + ": cannot write the job script");
  if (Status files = write_run_files(spec, run.out_dir, run.out_dir); !files) return files;
  return run;
}

}  // namespace scalestudy::sched
