#include "orchestrator/campaign/prepare_run.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"

namespace scalestudy::campaign {

std::string executable_dir() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(".") : self.parent_path().string();
}

PrepareRun make_run_preparer(const PrepareContext& context) {
  return [context](const RunSpec& spec, const std::string& out_dir) -> Result<sched::PreparedRun> {
    RenderContext render;
    render.out_dir = out_dir;
    render.binary_path = resolve_workload_binary(spec.workload, context.bin_dir);
    render.launch_helper_path = context.bin_dir + "/scalestudy-launch";
    if (spec.profile != "none" && !spec.profile.empty()) {
      auto wrapper = load_profile_wrapper(context.profiles_dir, spec.profile);
      if (!wrapper) return wrapper.status();
      render.profile_wrapper = std::move(*wrapper);
    }
    if (Status checked = check_render_context(render); !checked) return checked;
    sched::PreparedRun run;
    run.spec = spec;
    run.out_dir = out_dir;
    run.script_path = out_dir + "/job.sbatch";
    run.workload_argv = workload_argv(spec, render.binary_path, out_dir);
    std::ofstream script(run.script_path, std::ios::trunc);
    script << render_sbatch_script(spec, render);
    if (!script.flush()) return Status::error(run.script_path + ": cannot write the job script");
    return run;
  };
}

}  // namespace scalestudy::campaign
