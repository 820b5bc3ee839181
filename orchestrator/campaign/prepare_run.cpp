#include "orchestrator/campaign/prepare_run.hpp"

#include <filesystem>

#include "orchestrator/sched/render/profile_wrapper.hpp"

namespace scalestudy::campaign {

std::string executable_dir() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(".") : self.parent_path().string();
}

Result<sched::RunPreparation> run_preparation(const PrepareContext& context, const RunSpec& spec,
                                              const std::string& out_dir, bool profiled) {
  sched::RunPreparation preparation;
  preparation.out_dir = out_dir;
  preparation.bin_dir = context.bin_dir;
  preparation.profiled = profiled;
  if (spec.profile != "none" && !spec.profile.empty()) {
    auto profile = load_profile(context.profiles_dir, spec.profile);
    if (!profile) return profile.status();
    preparation.profile = std::move(*profile);
  }
  return preparation;
}

PrepareRun make_run_preparer(const PrepareContext& context, const sched::Scheduler& scheduler,
                             bool profiled) {
  return [context, &scheduler, profiled](const RunSpec& spec,
                                         const std::string& out_dir) -> Result<sched::PreparedRun> {
    auto preparation = run_preparation(context, spec, out_dir, profiled);
    if (!preparation) return preparation.status();
    return scheduler.prepare(spec, *preparation);
  };
}

}  // namespace scalestudy::campaign
