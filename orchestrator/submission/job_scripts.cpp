#include "orchestrator/submission/job_scripts.hpp"

#include <filesystem>

#include "harness/core/run_layout.hpp"
#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/job_script_preparation.hpp"

namespace scalestudy::submission {

namespace {
namespace fs = std::filesystem;
}  // namespace

std::optional<SubmitFailure> write_job_scripts(const Study& study, const std::string& dir,
                                               const std::string& results_dir,
                                               const std::string& profiles_dir) {
  // `plan --emit-scripts /tmp/jobs`: a folder another user made first is refused.
  if (Status made = common::make_owned_directory(dir, 0755); !made) {
    return SubmitFailure{SubmitFailure::Kind::kUnavailable, made};
  }
  const std::string results_root = fs::absolute(results_dir).lexically_normal().string();
  const campaign::PrepareContext context{campaign::executable_dir(), profiles_dir};
  std::vector<sched::RunPreparation> preparations;
  for (const auto& run : study.runs) {
    auto preparation = campaign::run_preparation(
        context, run, run_layout::run_dir(results_root, study.name, run.run_id));
    if (!preparation) {
      return SubmitFailure{SubmitFailure::Kind::kUnavailable, preparation.status()};
    }
    preparations.push_back(std::move(*preparation));
  }
  for (size_t index = 0; index < study.runs.size(); ++index) {
    const RunSpec& run = study.runs[index];
    auto text = sched::render_job_script(run, preparations[index]);
    if (!text) {
      return SubmitFailure{SubmitFailure::Kind::kBadRequest, text.status()};
    }
    fs::path script = fs::path(dir) / (run.run_id + ".sbatch");
    if (Status written = common::write_file_replacing(script.string(), *text, 0644); !written) {
      return SubmitFailure{SubmitFailure::Kind::kUnavailable, written};
    }
    // Beside its script, as the run will find them: <run_id>.<name>.
    if (Status files =
            sched::write_run_files(run, preparations[index].out_dir, dir, run.run_id + ".");
        !files) {
      return SubmitFailure{SubmitFailure::Kind::kUnavailable, files};
    }
  }
  return std::nullopt;
}

}  // namespace scalestudy::submission
