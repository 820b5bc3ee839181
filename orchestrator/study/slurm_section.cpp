#include "orchestrator/study/slurm_section.hpp"

#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kSlurmKeys = {
    "partition",     "account", "qos",           "constraint",     "reservation", "time",
    "cpus_per_task", "mem",     "gpus_per_node", "ranks_per_node", "extra"};

// partition, account, qos, constraint, reservation: one line of text each, may hold
// ${references}.
void read_text_options(const ConfigNode& slurm, StudyTemplate& study, Diagnostics& diagnostics) {
  SlurmOptions& options = study.shared.slurm;
  const std::pair<const char*, std::string*> text_options[] = {
      {"partition", &options.partition},
      {"account", &options.account},
      {"qos", &options.qos},
      {"constraint", &options.constraint},
      {"reservation", &options.reservation}};
  for (const auto& [key, target] : text_options) {
    const ConfigNode* node = slurm.find(key);
    if (!node) continue;
    std::string field = std::string("slurm.") + key;
    if (auto text = read_line_scalar(*node, field, diagnostics)) {
      *target = *text;
      remember_setting(field, *node, *text, study.field_locations, diagnostics);
    }
  }
}

NodeDefaults read_node_defaults(const ConfigNode& slurm, Diagnostics& diagnostics) {
  NodeDefaults defaults;
  if (const ConfigNode* gpus = slurm.find("gpus_per_node")) {
    if (auto value = read_integer(*gpus, "slurm.gpus_per_node", 0, diagnostics)) {
      defaults.gpus_per_node = static_cast<int>(*value);
    }
  }
  if (const ConfigNode* ranks = slurm.find("ranks_per_node")) {
    if (auto value = read_integer(*ranks, "slurm.ranks_per_node", 1, diagnostics)) {
      defaults.ranks_per_node = static_cast<int>(*value);
      if (defaults.gpus_per_node > 0) {
        diagnostics.add(ranks->location, "slurm.ranks_per_node",
                        "give gpus_per_node (GPU runs) or ranks_per_node (CPU runs), not both");
      }
    }
  }
  return defaults;
}

// The study key that sets what an sbatch option sets, when there is one: nodes and tasks
// come from `scale`, the rest from `slurm.<key>`, which the system's limits check and the
// budget counts; empty for an option no key covers (--exclusive, --signal, ...).
std::string key_for_option(const std::string& option) {
  const std::string name = option.substr(0, option.find('='));
  // --gres also asks for other resources (nvme:1, ...): only GPUs are slurm.gpus_per_node's.
  if (name == "--gres" && option.find("gpu") == std::string::npos) return "";
  static const std::vector<std::pair<std::vector<std::string>, std::string>> kKeys = {
      {{"--time", "-t"}, "slurm.time"},
      {{"--nodes", "-N", "--ntasks", "-n", "--ntasks-per-node"}, "scale"},
      {{"--mem", "--mem-per-cpu", "--mem-per-gpu"}, "slurm.mem"},
      {{"--gres", "--gpus", "-G", "--gpus-per-node", "--gpus-per-task"}, "slurm.gpus_per_node"},
      {{"--cpus-per-task", "-c"}, "slurm.cpus_per_task"},
      {{"--partition", "-p"}, "slurm.partition"},
      {{"--account", "-A"}, "slurm.account"},
      {{"--qos", "-q"}, "slurm.qos"},
      {{"--constraint", "-C"}, "slurm.constraint"},
      {{"--reservation"}, "slurm.reservation"}};
  for (const auto& [names, key] : kKeys) {
    for (const std::string& candidate : names) {
      // "-t30" as "-t 30": a short option's value may follow it directly.
      const bool short_joined = candidate.size() == 2 && name.size() > 2 &&
                                name.compare(0, 2, candidate) == 0 && name[1] != '-';
      if (name == candidate || short_joined) return key;
    }
  }
  return "";
}

// Raw sbatch options ("--exclusive"), each on one line; none that a study key sets, since
// slurm.extra would pass it by the system's limits and the budget gate.
void read_extra_options(const ConfigNode& extra, StudyTemplate& study, Diagnostics& diagnostics) {
  size_t index = 0;
  for (const ConfigNode* item : read_list(extra, "slurm.extra", diagnostics)) {
    std::string field = indexed_field("slurm.extra", index++);
    auto text = read_line_scalar(*item, field, diagnostics);
    if (!text) continue;
    if (text->size() < 2 || (*text)[0] != '-') {
      diagnostics.add(item->location, field,
                      "expected an sbatch option such as --exclusive, got '" + *text + "'");
      continue;
    }
    if (const std::string key = key_for_option(*text); !key.empty()) {
      diagnostics.add(item->location, field,
                      "'" + *text + "' sets what " + key + " sets; use " + key +
                          " (checked against the system's limits and counted by the budget)");
      continue;
    }
    remember_setting(field, *item, *text, study.field_locations, diagnostics);
    study.shared.slurm.extra_options.push_back(*text);
  }
}

}  // namespace

NodeDefaults read_slurm_section(const ConfigNode& slurm, StudyTemplate& study,
                                Diagnostics& diagnostics) {
  if (!expect_map(slurm, "slurm", diagnostics)) return {};
  check_keys(slurm, "slurm.", kSlurmKeys, diagnostics);
  SlurmOptions& options = study.shared.slurm;
  read_text_options(slurm, study, diagnostics);
  if (const ConfigNode* time = slurm.find("time")) {
    study.field_locations["slurm.time"] = time->location;
    if (auto minutes = read_time_limit(*time, "slurm.time", diagnostics)) {
      options.time_limit_minutes = *minutes;
    }
  }
  if (const ConfigNode* cpus = slurm.find("cpus_per_task")) {
    study.field_locations["slurm.cpus_per_task"] = cpus->location;
    if (auto value = read_integer(*cpus, "slurm.cpus_per_task", 1, diagnostics)) {
      options.cpus_per_task = static_cast<int>(*value);
    }
  }
  if (const ConfigNode* mem = slurm.find("mem")) {
    study.field_locations["slurm.mem"] = mem->location;
    if (auto megabytes = read_memory_size(*mem, "slurm.mem", diagnostics)) {
      options.memory_mb = *megabytes;
    }
  }
  NodeDefaults defaults = read_node_defaults(slurm, diagnostics);
  if (const ConfigNode* extra = slurm.find("extra")) read_extra_options(*extra, study, diagnostics);
  return defaults;
}

}  // namespace scalestudy
