// The table of scheduler backends: adding one is one line here.
#include "orchestrator/sched/scheduler_registry.hpp"

#include <algorithm>

#include "orchestrator/sched/local_scheduler.hpp"
#include "orchestrator/sched/slurm_scheduler.hpp"
#include "orchestrator/sched/slurmrest_scheduler.hpp"

namespace scalestudy::sched {

const std::vector<SchedulerEntry>& scheduler_entries() {
  static const std::vector<SchedulerEntry> entries = {
      local_scheduler_entry(),
      slurm_scheduler_entry(),
      slurmrest_scheduler_entry(),
  };
  return entries;
}

const SchedulerEntry* find_scheduler_entry(const std::string& name) {
  for (const SchedulerEntry& entry : scheduler_entries()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const SchedulerEntry& entry : scheduler_entries()) names.push_back(entry.name);
  return names;
}

Result<std::unique_ptr<Scheduler>> make_scheduler(const std::string& name,
                                                  const SchedulerContext& context,
                                                  const SchedulerOptionValues& values) {
  if (const SchedulerEntry* entry = find_scheduler_entry(name)) return entry->make(context, values);
  std::string known;
  for (const std::string& each : scheduler_names()) known += (known.empty() ? "" : ", ") + each;
  return Status::error("unknown scheduler '" + name + "' (known: " + known + ")");
}

std::string system_key_flag(const std::string& key) {
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

bool is_backend_setting(const std::string& scheduler, const std::string& key) {
  const SchedulerEntry* entry = find_scheduler_entry(scheduler);
  if (entry == nullptr) return false;
  const std::string flag = system_key_flag(key);
  return std::any_of(entry->options.begin(), entry->options.end(),
                     [&](const SchedulerOption& option) { return option.flag == flag; });
}

Status check_scheduler_options(const SchedulerOptionValues& values) {
  for (const SchedulerEntry& entry : scheduler_entries()) {
    if (entry.check_options == nullptr) continue;
    if (Status checked = entry.check_options(values); !checked) return checked;
  }
  return Status::ok();
}

bool share_job_ids(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const SchedulerEntry* first = find_scheduler_entry(a);
  const SchedulerEntry* second = find_scheduler_entry(b);
  return first != nullptr && second != nullptr && !first->family.empty() &&
         first->family == second->family;
}

std::vector<const SchedulerEntry*> detection_order() {
  std::vector<const SchedulerEntry*> order;
  for (const SchedulerEntry& entry : scheduler_entries()) order.push_back(&entry);
  // Probed entries first, by detect_order; the fallback (no probe) last.
  std::stable_sort(order.begin(), order.end(),
                   [](const SchedulerEntry* a, const SchedulerEntry* b) {
                     if ((a->detect == nullptr) != (b->detect == nullptr))
                       return b->detect == nullptr;
                     return a->detect_order < b->detect_order;
                   });
  return order;
}

std::string detect_scheduler() {
  for (const SchedulerEntry* entry : detection_order()) {
    if (entry->detect == nullptr || entry->detect()) return entry->name;
  }
  return "";
}

}  // namespace scalestudy::sched
