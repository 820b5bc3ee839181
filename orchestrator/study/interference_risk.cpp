#include "orchestrator/study/interference_risk.hpp"

#include <algorithm>

namespace scalestudy {
namespace {

bool exclusive(const RunSpec& run) {
  const auto& options = run.slurm.extra_options;
  return std::any_of(options.begin(), options.end(), [](const std::string& option) {
    return option == "--exclusive" || option.rfind("--exclusive=", 0) == 0;
  });
}

}  // namespace

std::vector<std::string> interference_risks(const Study& study, const ExecutionSettings& settings) {
  std::vector<std::string> risks;
  if (study.runs.size() < 2) return risks;
  const bool local = settings.placement == RunPlacement::kThisHost;
  const bool unknown = settings.placement == RunPlacement::kUnknown;
  const bool batch = unknown || !local;
  const auto shared = std::count_if(study.runs.begin(), study.runs.end(),
                                    [](const RunSpec& run) { return !exclusive(run); });
  if (batch && shared > 0 && study.array_throttle != 1) {
    const std::string throttle = study.array_throttle == 0
                                     ? std::string("array_throttle unset (no limit)")
                                     : "array_throttle " + std::to_string(study.array_throttle);
    risks.push_back(std::to_string(shared) + " runs lack slurm.extra: [--exclusive] and " +
                    throttle +
                    " lets several run at once: runs sharing a node measure each other (add "
                    "--exclusive, or array_throttle: 1)");
  }
  if (local && settings.max_parallel_runs > 1) {
    risks.push_back("the local executor runs " + std::to_string(settings.max_parallel_runs) +
                    " runs at once on this host (--max-parallel): they measure each other");
  }
  if ((local || unknown) && settings.hardware_threads > 0) {
    // Not knowing the scheduler yet (plan), only CPU runs are likely to run locally.
    int most_threads = 0;
    for (const auto& run : study.runs) {
      if (!local && run.slurm.gpus_per_node > 0) continue;
      most_threads = std::max(most_threads, run.world_size * run.slurm.cpus_per_task);
    }
    if (most_threads > settings.hardware_threads) {
      risks.push_back(std::string(local ? "" : "run locally, ") + "the largest run needs " +
                      std::to_string(most_threads) +
                      " threads (ranks × cpus_per_task) but this "
                      "host has " +
                      std::to_string(settings.hardware_threads) + ": its ranks share cores");
    }
  }
  return risks;
}

}  // namespace scalestudy
