#include "orchestrator/submission/scheduler_shares.hpp"

#include <algorithm>

#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::submission {

Result<std::vector<SchedulerShare>> scheduler_shares(const Study& study,
                                                     const std::optional<std::string>& given,
                                                     const sched::SchedulerOptionValues& values) {
  std::optional<std::string> detected;  // probed once, and only when a run needs it
  std::vector<SchedulerShare> shares;
  for (const RunSpec& run : study.runs) {
    SchedulerShare wanted{"", values, run.system.named ? run.system.label() : "", {}};
    if (!run.system.named) {
      if (!given && !detected) detected = sched::detect_scheduler();
      wanted.scheduler = given ? *given : *detected;
    } else {
      // A backend of the system's family may reach it: slurmrest for a slurm system.
      if (given && !sched::share_job_ids(run.system.scheduler, *given)) {
        return Status::error("--scheduler " + *given + " cannot submit to system " +
                             run.system.label() + ", whose scheduler is " + run.system.scheduler);
      }
      wanted.scheduler = given ? *given : run.system.scheduler;
      for (const auto& [key, value] : run.system.scheduler_settings) {
        wanted.values.emplace(sched::system_key_flag(key), value);
      }
    }
    auto same = std::find_if(shares.begin(), shares.end(), [&](const SchedulerShare& share) {
      return share.system == wanted.system && share.scheduler == wanted.scheduler;
    });
    if (same == shares.end()) same = shares.insert(shares.end(), std::move(wanted));
    same->run_ids.insert(run.run_id);
  }
  // A study without runs still records itself through one scheduler.
  if (shares.empty()) shares.push_back({given.value_or(sched::detect_scheduler()), values, "", {}});
  return shares;
}

Study study_share(const Study& study, const SchedulerShare& share) {
  Study part = study;
  part.runs.clear();
  for (const RunSpec& run : study.runs) {
    if (share.run_ids.count(run.run_id)) part.runs.push_back(run);
  }
  return part;
}

}  // namespace scalestudy::submission
