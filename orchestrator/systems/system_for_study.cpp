#include "orchestrator/systems/system_for_study.hpp"

#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/systems/system_catalog.hpp"
#include "orchestrator/systems/system_document.hpp"
#include "orchestrator/systems/system_schema.hpp"

namespace scalestudy::systems {
namespace {

const ConfigNode* child(const ConfigNode& map, const std::string& section, const std::string& key) {
  const ConfigNode* parent = map.find(section);
  return parent != nullptr && parent->is_map() ? parent->find(key) : nullptr;
}

ConfigNode map_at(const SourceLocation& location) {
  ConfigNode map;
  map.type = ConfigNode::Type::kMap;
  map.location = location;
  return map;
}

void put(ConfigNode& map, const std::string& key, ConfigNode value) {
  map.entries.push_back({key, value.location, std::move(value)});
}

// The study's `slurm:` keys the system states (partition, account, qos, constraint,
// reservation: a study's own key replaces the system's), with the system file's locations.
ConfigNode slurm_overlay(const ConfigNode& merged, const SystemSpec& system) {
  ConfigNode slurm = map_at(merged.location);
  if (sched::find_scheduler_entry(system.scheduler) == nullptr) return slurm;
  for (const auto& setting : system.scheduler_keys) {
    const std::string& key = setting.first;
    if (sched::is_backend_setting(system.scheduler, key)) continue;
    put(slurm, key, *child(merged, "scheduler", key));
  }
  if (system.node.gpus > 0) put(slurm, "gpus_per_node", *child(merged, "node", "gpus"));
  if (const ConfigNode* time = child(merged, "defaults", "time")) put(slurm, "time", *time);
  if (const ConfigNode* mem = child(merged, "defaults", "mem")) put(slurm, "mem", *mem);
  return slurm;
}

ConfigNode study_overlay(const ConfigNode& merged, const SystemSpec& system) {
  ConfigNode overlay = map_at(merged.location);
  ConfigNode slurm = slurm_overlay(merged, system);
  if (!slurm.entries.empty()) put(overlay, "slurm", std::move(slurm));
  for (const char* key : {"modules", "container", "env"}) {
    if (const ConfigNode* node = child(merged, "runtime", key)) put(overlay, key, *node);
  }
  return overlay;
}

std::optional<SystemLimit> limit(const SystemSpec& system, const std::string& field,
                                 std::optional<long long> value) {
  auto location = system.field_locations.find(field);
  if (!value || location == system.field_locations.end()) return std::nullopt;
  return SystemLimit{*value, field, location->second};
}

std::optional<long long> declared(long long value) {
  return value > 0 ? std::optional<long long>(value) : std::nullopt;
}

StudySystem study_system(const SystemDocument& document, const SystemSpec& system) {
  StudySystem made;
  RunSystem& run = made.run;
  run.id = system.id;
  run.variant = system.variant;
  run.hash = system.hash;
  run.scheduler = system.scheduler;
  for (const auto& [key, value] : system.scheduler_keys) {
    if (sched::is_backend_setting(system.scheduler, key)) run.scheduler_settings[key] = value;
  }
  run.srun_flags = system.srun_flags;
  if (system.field_locations.count("node.gpus")) run.node.gpus = system.node.gpus;
  run.node.gpu_model = system.node.gpu_model;
  run.node.cores = system.node.cores;
  run.node.hostname_pattern = system.detect_hostname;
  run.peak_tflops = system.peak.tflops;
  run.max_time_minutes = static_cast<int>(system.limits.max_time_minutes.value_or(0));
  run.resolved_yaml = system.resolved_yaml;
  made.overlay = study_overlay(document.merged, system);
  const auto& limits = system.limits;
  made.max_nodes = limit(system, "limits.max_nodes", limits.max_nodes);
  made.max_time_minutes = limit(system, "limits.max_time", limits.max_time_minutes);
  made.gpus_per_node = limit(system, "node.gpus", system.node.gpus);
  made.cores_per_node = limit(system, "node.cores", declared(system.node.cores));
  made.memory_mb = limit(system, "node.memory", declared(system.node.memory_mb));
  return made;
}

}  // namespace

Result<StudySystem> resolve_study_system(const SystemSearchPath& path, const std::string& label) {
  Result<SystemDocument> document = load_system_document(path, label);
  if (!document) return document.status();
  Diagnostics diagnostics;
  SystemSpec system = read_system(*document, diagnostics);
  if (!diagnostics.empty()) return diagnostics.to_status();
  return study_system(*document, system);
}

StudySystemChoice study_system_choice(const SystemSearchPath& path, std::vector<std::string> labels,
                                      const std::string& hostname) {
  StudySystemChoice choice;
  choice.labels = std::move(labels);
  choice.resolve = [path](const std::string& label) { return resolve_study_system(path, label); };
  choice.implicit = [path, hostname]() -> Result<std::optional<StudySystem>> {
    const std::string id = detect_system(path, hostname).id.value_or("local");
    auto system = resolve_study_system(path, id);
    if (!system) return system.status().with_context("system " + id);
    return std::optional<StudySystem>(std::move(*system));
  };
  return choice;
}

}  // namespace scalestudy::systems
