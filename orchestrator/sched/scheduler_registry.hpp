// The registry of scheduler backends: one {name, factory} entry per backend, with what the
// CLI and the campaign ask of it by name — its command-line options, a paragraph for help
// texts, how it is detected, and which backends share its job ids. Each backend's entry
// lives beside it (local_scheduler_entry(), ...); scheduler_registry.cpp lists them, one line
// each. The table is constant; the functions are thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_options.hpp"

namespace scalestudy::sched {

struct SchedulerEntry {
  std::string name;
  // Backends of one family share job ids (a job submitted by one is polled by another);
  // empty: the backend shares its ids with no other.
  std::string family;
  std::vector<SchedulerOption> options;
  // The keys a system file's `scheduler:` map may hold beside `kind` (systems/*.yaml,
  // docs/systems.md): `flag` holds the key, e.g. "partition"; and a check of one key's
  // value, whose message names the key (may be null: any line of text).
  std::vector<SchedulerOption> system_keys;
  Status (*check_system_key)(const std::string& key, const std::string& value) = nullptr;
  std::string help_note;     // a paragraph for `submit --help`; may be empty
  std::string cancels_with;  // how `cancel` stops its jobs, for `cancel --help`
  // Detection: probes are asked in ascending detect_order; the entry without one is the
  // fallback. detect_when says when the probe answers yes, for help texts.
  int detect_order = 0;
  std::string detect_when;
  bool (*detect)() = nullptr;
  // An error for option values the backend cannot take (a usage error); may be null.
  Status (*check_options)(const SchedulerOptionValues& values) = nullptr;
  Result<std::unique_ptr<Scheduler>> (*make)(const SchedulerContext& context,
                                             const SchedulerOptionValues& values) = nullptr;
};

// Every backend, in the order help texts list them.
const std::vector<SchedulerEntry>& scheduler_entries();
std::vector<std::string> scheduler_names();

// The backend `name` configured from `values` (its own options; others are ignored); an
// error naming the known backends for an unknown name.
Result<std::unique_ptr<Scheduler>> make_scheduler(const std::string& name,
                                                  const SchedulerContext& context,
                                                  const SchedulerOptionValues& values = {});

// The entry of backend `name`, or nullptr.
const SchedulerEntry* find_scheduler_entry(const std::string& name);

// The command-line option a system file's scheduler key stands for: "max_parallel" ->
// "--max-parallel". Keys without such an option are job settings (partition, ...).
std::string system_key_flag(const std::string& key);

// True when `key` of a system's `scheduler:` map sets one of backend `scheduler`'s own
// options (local's max_parallel, slurmrest's url) rather than a job's; false for an unknown
// backend.
bool is_backend_setting(const std::string& scheduler, const std::string& key);

// Every backend's check of `values`: an error for the first option a backend refuses.
Status check_scheduler_options(const SchedulerOptionValues& values);

// True when jobs of backend `a` can be polled by backend `b` (same name or family).
bool share_job_ids(const std::string& a, const std::string& b);

// The probed backends by detect_order, then the fallback.
std::vector<const SchedulerEntry*> detection_order();

// The default when neither the command line nor the study names one: the first backend
// whose probe answers (detect_order), else the fallback.
std::string detect_scheduler();

}  // namespace scalestudy::sched
