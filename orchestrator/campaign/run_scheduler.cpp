#include "orchestrator/campaign/run_scheduler.hpp"

#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::campaign {

std::string run_scheduler_key(const RunRecord& run) {
  std::string key = run.scheduler;
  for (const auto& [name, value] : run.scheduler_settings) key += "\n" + name + "=" + value;
  return key;
}

sched::SchedulerOptionValues run_scheduler_values(const RunRecord& run) {
  sched::SchedulerOptionValues values;
  for (const auto& [key, value] : run.scheduler_settings) {
    values[sched::system_key_flag(key)] = value;
  }
  return values;
}

}  // namespace scalestudy::campaign
