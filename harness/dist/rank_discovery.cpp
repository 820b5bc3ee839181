#include "harness/dist/rank_discovery.hpp"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <vector>

#include "harness/dist/hostlist.hpp"

extern char** environ;

namespace scalestudy::dist {
namespace {

std::optional<std::string> lookup(const Environment& environment, const std::string& name) {
  auto found = environment.find(name);
  if (found == environment.end() || found->second.empty()) return std::nullopt;
  return found->second;
}

Result<long> parse_integer(const std::string& text, const std::string& name) {
  errno = 0;
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') {
    return Status::error("environment variable " + name + "='" + text + "' is not an integer");
  }
  return value;
}

// The first set variable among `names`, parsed as an integer; nullopt when none is set.
Result<std::optional<long>> integer_variable(const Environment& environment,
                                             const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (auto text = lookup(environment, name)) {
      auto value = parse_integer(*text, name);
      if (!value) return value.status();
      return std::optional<long>(*value);
    }
  }
  return std::optional<long>();
}

// SLURM's tasks-per-node list "2(x3),1" → 2,2,2,1; the entry for `node_index`.
Result<long> tasks_on_node(const std::string& text, const std::string& name, long node_index) {
  long node = 0;
  size_t position = 0;
  while (position <= text.size()) {
    size_t comma = text.find(',', position);
    std::string item =
        text.substr(position, comma == std::string::npos ? std::string::npos : comma - position);
    long repeat = 1;
    size_t paren = item.find("(x");
    if (paren != std::string::npos && item.back() == ')') {
      auto count = parse_integer(item.substr(paren + 2, item.size() - paren - 3), name);
      if (!count) return count.status();
      repeat = *count;
      item = item.substr(0, paren);
    }
    auto tasks = parse_integer(item, name);
    if (!tasks) return tasks.status();
    if (node_index < node + repeat) return *tasks;
    node += repeat;
    if (comma == std::string::npos) break;
    position = comma + 1;
  }
  return Status::error("environment variable " + name + "='" + text + "' has no entry for node " +
                       std::to_string(node_index));
}

Status check_ranges(const RankInfo& info) {
  if (info.world_size < 1) return Status::error("world size must be >= 1");
  if (info.rank < 0 || info.rank >= info.world_size) {
    return Status::error("rank " + std::to_string(info.rank) + " outside world of " +
                         std::to_string(info.world_size));
  }
  if (info.local_world_size < 1 || info.local_rank < 0 ||
      info.local_rank >= info.local_world_size) {
    return Status::error("local rank " + std::to_string(info.local_rank) +
                         " outside local world of " + std::to_string(info.local_world_size));
  }
  if (info.master_port < 1 || info.master_port > 65535) {
    return Status::error("master port " + std::to_string(info.master_port) + " outside 1..65535");
  }
  return Status::ok();
}

Result<std::optional<std::string>> first_slurm_host(const Environment& environment) {
  auto nodelist = lookup(environment, "SLURM_STEP_NODELIST");
  if (!nodelist) nodelist = lookup(environment, "SLURM_JOB_NODELIST");
  if (!nodelist) return std::optional<std::string>();
  auto hosts = expand_hostlist(*nodelist);
  if (!hosts) return hosts.status().with_context("SLURM_JOB_NODELIST");
  return std::optional<std::string>(hosts->front());
}

Status fill_master(const Environment& environment, RankInfo& info) {
  if (auto addr = lookup(environment, "MASTER_ADDR")) {
    info.master_addr = *addr;
  } else {
    auto host = first_slurm_host(environment);
    if (!host) return host.status();
    if (*host) info.master_addr = **host;
  }
  auto port = integer_variable(environment, {"MASTER_PORT"});
  if (!port) return port.status();
  info.master_port = *port ? static_cast<int>(**port) : derive_master_port(info.job_id);
  return Status::ok();
}

Status fill_torchrun(const Environment& environment, RankInfo& info) {
  info.convention = "torchrun";
  auto rank = integer_variable(environment, {"RANK"});
  auto world = integer_variable(environment, {"WORLD_SIZE"});
  auto local_rank = integer_variable(environment, {"LOCAL_RANK"});
  auto local_world = integer_variable(environment, {"LOCAL_WORLD_SIZE"});
  for (const auto* value : {&rank, &world, &local_rank, &local_world}) {
    if (!*value) return value->status();
  }
  if (!*world) return Status::error("RANK is set but WORLD_SIZE is not");
  info.rank = static_cast<int>(**rank);
  info.world_size = static_cast<int>(**world);
  info.local_rank = static_cast<int>(local_rank->value_or(0));
  info.local_world_size = static_cast<int>(local_world->value_or(info.world_size));
  return Status::ok();
}

Status fill_slurm(const Environment& environment, RankInfo& info) {
  info.convention = "slurm";
  auto rank = integer_variable(environment, {"SLURM_PROCID"});
  auto world = integer_variable(environment, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"});
  auto local_rank = integer_variable(environment, {"SLURM_LOCALID"});
  auto node = integer_variable(environment, {"SLURM_NODEID"});
  for (const auto* value : {&rank, &world, &local_rank, &node}) {
    if (!*value) return value->status();
  }
  if (!*world) return Status::error("SLURM_PROCID is set but SLURM_NTASKS is not");
  info.rank = static_cast<int>(**rank);
  info.world_size = static_cast<int>(**world);
  info.local_rank = static_cast<int>(local_rank->value_or(0));
  info.local_world_size = 1;
  for (const char* name :
       {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE"}) {
    if (auto text = lookup(environment, name)) {
      auto tasks = tasks_on_node(*text, name, node->value_or(0));
      if (!tasks) return tasks.status();
      info.local_world_size = static_cast<int>(*tasks);
      break;
    }
  }
  return Status::ok();
}

}  // namespace

Environment process_environment() {
  Environment environment;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string text(*entry);
    size_t equals = text.find('=');
    if (equals != std::string::npos) environment[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return environment;
}

int derive_master_port(const std::string& job_id) {
  if (job_id.empty()) return kDefaultMasterPort;
  errno = 0;
  char* end = nullptr;
  unsigned long long id = std::strtoull(job_id.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return kDefaultMasterPort;
  return 20000 + static_cast<int>(id % 12768);
}

Result<RankInfo> discover_ranks(const Environment& environment) {
  RankInfo info;
  info.job_id = lookup(environment, "SLURM_JOB_ID").value_or("");
  info.run_id = lookup(environment, "SCALESTUDY_RUN_ID").value_or("");
  info.launch_id = lookup(environment, "SCALESTUDY_LAUNCH_ID").value_or("");
  Status filled = Status::ok();
  if (lookup(environment, "RANK")) {
    filled = fill_torchrun(environment, info);
  } else if (lookup(environment, "SLURM_PROCID")) {
    filled = fill_slurm(environment, info);
  }
  if (filled) filled = fill_master(environment, info);
  if (filled) filled = check_ranges(info);
  if (!filled) return filled.with_context("rank discovery (" + info.convention + ")");
  return info;
}

}  // namespace scalestudy::dist
