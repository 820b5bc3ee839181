#include "orchestrator/systems/system_schema.hpp"

#include <algorithm>
#include <regex>

#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/study/config_yaml.hpp"
#include "orchestrator/study/environment_section.hpp"
#include "orchestrator/study/run_id.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"
#include "orchestrator/study/study_template.hpp"

namespace scalestudy::systems {
namespace {

const std::vector<std::string> kTopLevelKeys = {"description", "scheduler", "node",
                                                "launcher",    "runtime",   "limits",
                                                "defaults",    "peak",      "detect"};
const std::vector<std::string> kNodeKeys = {"gpus", "gpu_model", "cores", "memory"};
const std::vector<std::string> kLauncherKeys = {"srun_flags"};
const std::vector<std::string> kRuntimeKeys = {"modules", "container", "env"};
const std::vector<std::string> kLimitKeys = {"max_nodes", "max_time", "max_jobs"};
const std::vector<std::string> kDefaultKeys = {"time", "mem"};
const std::vector<std::string> kPeakKeys = {"tflops", "link_gb_per_s"};
const std::vector<std::string> kDetectKeys = {"hostname"};

// The node of `key` in `map`, its location remembered under `field`.
const ConfigNode* located(const ConfigNode& map, const std::string& key, const std::string& field,
                          SystemSpec& system) {
  const ConfigNode* node = map.find(key);
  if (node != nullptr) system.field_locations[field] = node->location;
  return node;
}

std::optional<double> read_positive(const ConfigNode& node, const std::string& field,
                                    Diagnostics& diagnostics) {
  auto value = read_non_negative_number(node, field, diagnostics);
  if (value && *value <= 0) {
    diagnostics.add(node.location, field, "must be more than zero");
    return std::nullopt;
  }
  return value;
}

void read_scheduler(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "scheduler", diagnostics)) return;
  const ConfigNode* kind = located(node, "kind", "scheduler.kind", system);
  if (kind == nullptr) {
    std::string names;
    for (const auto& name : sched::scheduler_names()) names += (names.empty() ? "" : ", ") + name;
    diagnostics.add(node.location, "scheduler.kind",
                    "missing: the scheduler that runs this system's jobs (" + names + ")");
    return;
  }
  auto name = read_scalar(*kind, "scheduler.kind", diagnostics);
  if (!name) return;
  const sched::SchedulerEntry* entry = sched::find_scheduler_entry(*name);
  if (entry == nullptr) {
    diagnostics.add_unknown(kind->location, "scheduler.kind", "scheduler", *name,
                            sched::scheduler_names());
    return;
  }
  system.scheduler = *name;
  std::vector<std::string> allowed{"kind"};
  for (const auto& key : entry->system_keys) allowed.push_back(key.flag);
  check_keys(node, "scheduler.", allowed, diagnostics);
  for (const ConfigEntry& setting : node.entries) {
    if (setting.key == "kind" ||
        std::find(allowed.begin(), allowed.end(), setting.key) == allowed.end()) {
      continue;
    }
    const std::string field = "scheduler." + setting.key;
    system.field_locations[field] = setting.value.location;
    auto text = read_line_scalar(setting.value, field, diagnostics);
    if (!text) continue;
    if (entry->check_system_key != nullptr) {
      if (Status checked = entry->check_system_key(setting.key, *text); !checked) {
        diagnostics.add(setting.value.location, field, checked.message());
        continue;
      }
    }
    system.scheduler_keys[setting.key] = *text;
  }
}

void read_node(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "node", diagnostics)) return;
  check_keys(node, "node.", kNodeKeys, diagnostics);
  if (const ConfigNode* gpus = located(node, "gpus", "node.gpus", system)) {
    if (auto value = read_integer(*gpus, "node.gpus", 0, diagnostics)) {
      system.node.gpus = static_cast<int>(*value);
    }
  }
  if (const ConfigNode* model = located(node, "gpu_model", "node.gpu_model", system)) {
    if (auto text = read_line_scalar(*model, "node.gpu_model", diagnostics)) {
      system.node.gpu_model = *text;
    }
  }
  if (const ConfigNode* cores = located(node, "cores", "node.cores", system)) {
    if (auto value = read_integer(*cores, "node.cores", 1, diagnostics)) {
      system.node.cores = static_cast<int>(*value);
    }
  }
  if (const ConfigNode* memory = located(node, "memory", "node.memory", system)) {
    if (auto value = read_memory_size(*memory, "node.memory", diagnostics)) {
      system.node.memory_mb = *value;
    }
  }
  if (system.node.gpus == 0 && !system.node.gpu_model.empty()) {
    diagnostics.add(system.field_locations["node.gpu_model"], "node.gpu_model",
                    "names a GPU model, but node.gpus is 0");
  }
}

void read_launcher(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "launcher", diagnostics)) return;
  check_keys(node, "launcher.", kLauncherKeys, diagnostics);
  const ConfigNode* flags = node.find("srun_flags");
  if (flags == nullptr) return;
  size_t index = 0;
  for (const ConfigNode* item : read_list(*flags, "launcher.srun_flags", diagnostics)) {
    const std::string field = indexed_field("launcher.srun_flags", index++);
    auto text = read_line_scalar(*item, field, diagnostics);
    if (!text) continue;
    if (text->rfind("-", 0) != 0) {
      diagnostics.add(item->location, field,
                      "expected an srun option such as --cpu-bind=cores, got '" + *text + "'");
      continue;
    }
    system.srun_flags.push_back(*text);
  }
}

// The study's own readers check modules, container and env, so a system states them
// exactly as a study does.
void read_runtime(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "runtime", diagnostics)) return;
  check_keys(node, "runtime.", kRuntimeKeys, diagnostics);
  StudyTemplate read;
  read_runtime_fields(node, "runtime.", read, diagnostics);
  system.modules = std::move(read.shared.modules);
  system.container = std::move(read.shared.container);
  system.env = std::move(read.shared.env);
}

void read_limits(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "limits", diagnostics)) return;
  check_keys(node, "limits.", kLimitKeys, diagnostics);
  if (const ConfigNode* nodes = located(node, "max_nodes", "limits.max_nodes", system)) {
    if (auto value = read_integer(*nodes, "limits.max_nodes", 1, diagnostics)) {
      system.limits.max_nodes = static_cast<int>(*value);
    }
  }
  if (const ConfigNode* time = located(node, "max_time", "limits.max_time", system)) {
    system.limits.max_time_minutes = read_time_limit(*time, "limits.max_time", diagnostics);
  }
  if (const ConfigNode* jobs = located(node, "max_jobs", "limits.max_jobs", system)) {
    if (auto value = read_integer(*jobs, "limits.max_jobs", 1, diagnostics)) {
      system.limits.max_jobs = static_cast<int>(*value);
    }
  }
}

void read_defaults(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "defaults", diagnostics)) return;
  check_keys(node, "defaults.", kDefaultKeys, diagnostics);
  if (const ConfigNode* time = located(node, "time", "defaults.time", system)) {
    system.defaults.time_minutes = read_time_limit(*time, "defaults.time", diagnostics);
  }
  if (const ConfigNode* mem = located(node, "mem", "defaults.mem", system)) {
    system.defaults.mem_mb = read_memory_size(*mem, "defaults.mem", diagnostics);
  }
}

void read_peak(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "peak", diagnostics)) return;
  check_keys(node, "peak.", kPeakKeys, diagnostics);
  if (const ConfigNode* tflops = node.find("tflops"); tflops != nullptr) {
    if (expect_map(*tflops, "peak.tflops", diagnostics)) {
      check_keys(*tflops, "peak.tflops.", peak_precisions(), diagnostics);
      for (const ConfigEntry& entry : tflops->entries) {
        const std::string field = "peak.tflops." + entry.key;
        auto value = read_positive(entry.value, field, diagnostics);
        if (value) system.peak.tflops[entry.key] = *value;
      }
    }
  }
  if (const ConfigNode* link = located(node, "link_gb_per_s", "peak.link_gb_per_s", system)) {
    system.peak.link_gb_per_s = read_positive(*link, "peak.link_gb_per_s", diagnostics);
  }
}

void read_detect(const ConfigNode& node, SystemSpec& system, Diagnostics& diagnostics) {
  if (!expect_map(node, "detect", diagnostics)) return;
  check_keys(node, "detect.", kDetectKeys, diagnostics);
  const ConfigNode* hostname = node.find("hostname");
  if (hostname == nullptr) {
    diagnostics.add(node.location, "detect.hostname", "missing: a pattern of host names");
    return;
  }
  auto pattern = read_line_scalar(*hostname, "detect.hostname", diagnostics);
  if (!pattern) return;
  try {
    std::regex compiled(*pattern);
    system.detect_hostname = *pattern;
  } catch (const std::regex_error& error) {
    diagnostics.add(hostname->location, "detect.hostname",
                    "not a regular expression: " + std::string(error.what()));
  }
}

}  // namespace

// Typed values, one line each in a fixed order, so two spellings of the same content (key
// order, quotes, 60 or 01:00:00, 2G or 2048M) hash alike. Leaves out what does not change
// how a run runs: description and detect (words), peak (the figures reports divide by),
// the backend's own settings (slurmrest's url, local's max_parallel: how jobs are sent) and
// limits (checks before submit). Editing those keeps every run's id.
std::string canonical_system_serialization(const SystemSpec& system) {
  std::string text;
  auto line = [&text](const std::string& key, const std::string& value) {
    text += key + "=" + value + "\n";
  };
  auto optional = [](const auto& value) {
    return value ? std::to_string(*value) : std::string("-");
  };
  line("scheduler", system.scheduler);
  for (const auto& [key, value] : system.scheduler_keys) {
    if (!sched::is_backend_setting(system.scheduler, key)) line("scheduler." + key, value);
  }
  line("node.gpus", std::to_string(system.node.gpus));
  line("node.gpu_model", system.node.gpu_model);
  line("node.cores", std::to_string(system.node.cores));
  line("node.memory_mb", std::to_string(system.node.memory_mb));
  for (const std::string& flag : system.srun_flags) line("srun_flag", flag);
  for (const std::string& module : system.modules) line("module", module);
  line("container.image", system.container.image);
  for (const std::string& bind : system.container.binds) line("container.bind", bind);
  for (const auto& [name, value] : system.env) line("env." + name, value);
  line("defaults.time_minutes", optional(system.defaults.time_minutes));
  line("defaults.mem_mb", optional(system.defaults.mem_mb));
  return text;
}

const std::vector<std::string>& peak_precisions() {
  static const std::vector<std::string> precisions = {"fp64", "fp32", "tf32",
                                                      "bf16", "fp16", "fp8"};
  return precisions;
}

SystemSpec read_system(const SystemDocument& document, Diagnostics& diagnostics) {
  SystemSpec system;
  system.id = document.id;
  system.variant = document.variant;
  system.file = document.file;
  system.variants = document.variants;
  const ConfigNode& merged = document.merged;
  check_keys(merged, "", kTopLevelKeys, diagnostics);
  if (const ConfigNode* description = merged.find("description")) {
    if (auto text = read_line_scalar(*description, "description", diagnostics)) {
      system.description = *text;
    }
  }
  if (const ConfigNode* scheduler = merged.find("scheduler")) {
    read_scheduler(*scheduler, system, diagnostics);
  } else {
    diagnostics.add(merged.location, "scheduler", "missing: which scheduler runs the jobs");
  }
  if (const ConfigNode* node = merged.find("node")) read_node(*node, system, diagnostics);
  if (const ConfigNode* launcher = merged.find("launcher")) {
    read_launcher(*launcher, system, diagnostics);
  }
  if (const ConfigNode* runtime = merged.find("runtime")) {
    read_runtime(*runtime, system, diagnostics);
  }
  if (const ConfigNode* limits = merged.find("limits")) read_limits(*limits, system, diagnostics);
  if (const ConfigNode* defaults = merged.find("defaults")) {
    read_defaults(*defaults, system, diagnostics);
  }
  if (const ConfigNode* peak = merged.find("peak")) read_peak(*peak, system, diagnostics);
  if (const ConfigNode* detect = merged.find("detect")) read_detect(*detect, system, diagnostics);
  const auto& limit = system.limits.max_time_minutes;
  const auto& time = system.defaults.time_minutes;
  if (limit && time && *time > *limit) {
    diagnostics.add(system.field_locations["defaults.time"], "defaults.time",
                    format_time_limit(*time) + " is longer than limits.max_time " +
                        format_time_limit(*limit) + " (" +
                        system.field_locations["limits.max_time"].to_string() + ")");
  }
  system.resolved_yaml = config_to_yaml(merged);
  system.hash = fnv1a_128_hex(canonical_system_serialization(system)).substr(0, 16);
  return system;
}

std::string system_label(const SystemSpec& system) {
  return system.variant.empty() ? system.id : system.id + ":" + system.variant;
}

}  // namespace scalestudy::systems
