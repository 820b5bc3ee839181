#include <cctype>
#include <set>
#include <sstream>
#include <utility>

#include "harness/core/cpu_isa.hpp"
#include "orchestrator/common/human_bytes.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

struct Topology {
  int sockets = 0;
  int physical_cores = 0;
  int logical_cpus = 0;
  std::string source;
};

bool is_cpu_directory(const std::string& name) {
  if (name.size() < 4 || !starts_with(name, "cpu")) return false;
  for (size_t i = 3; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

// sysfs knows the topology of every online CPU; /proc/cpuinfo is the fallback (some
// containers hide sysfs), and plain processor counting the last resort (no ids at all).
Topology read_topology(const Probe& probe,
                       const std::vector<std::map<std::string, std::string>>& processors) {
  Topology topology;
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  const std::string cpu_root = "/sys/devices/system/cpu/";
  for (const auto& name : probe.list_dir(cpu_root)) {
    if (!is_cpu_directory(name)) continue;
    auto package = probe.read_line(cpu_root + name + "/topology/physical_package_id");
    auto core = probe.read_line(cpu_root + name + "/topology/core_id");
    if (!package || !core) continue;  // offline CPUs have no topology
    packages.insert(*package);
    cores.emplace(*package, *core);
    ++topology.logical_cpus;
  }
  if (topology.logical_cpus > 0) {
    topology.source = "/sys/devices/system/cpu/cpu*/topology";
  } else {
    for (const auto& processor : processors) {
      auto package = processor.find("physical id");
      auto core = processor.find("core id");
      if (package == processor.end() || core == processor.end()) continue;
      packages.insert(package->second);
      cores.emplace(package->second, core->second);
    }
    topology.logical_cpus = static_cast<int>(processors.size());
    topology.source = cores.empty() ? "/proc/cpuinfo (processor count; no topology ids)"
                                    : "/proc/cpuinfo (physical id, core id)";
  }
  topology.sockets = packages.empty() ? 1 : static_cast<int>(packages.size());
  topology.physical_cores = cores.empty() ? topology.logical_cpus : static_cast<int>(cores.size());
  return topology;
}

std::string cpu_model(const std::map<std::string, std::string>& first) {
  for (const char* key : {"model name", "Model Name", "cpu model", "Hardware", "cpu"}) {
    auto found = first.find(key);
    if (found != first.end() && !found->second.empty()) return found->second;
  }
  return "";
}

// Instruction-set extensions that matter for CPU training throughput.
std::string notable_flags(const std::map<std::string, std::string>& first) {
  auto found = first.find("flags");
  if (found == first.end()) found = first.find("Features");
  if (found == first.end()) return "";
  std::set<std::string> present;
  std::istringstream words(found->second);
  for (std::string word; words >> word;) present.insert(word);
  std::string notable;
  for (const char* flag : {"avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16",
                           "amx_tile", "asimd", "sve", "sve2"}) {
    if (present.count(flag)) notable += (notable.empty() ? "" : " ") + std::string(flag);
  }
  return notable;
}

void add_numa(const Probe& probe, Section& section) {
  const std::string node_root = "/sys/devices/system/node/";
  Table table{"NUMA nodes", {"Node", "CPUs", "Memory"}, {}};
  for (const auto& name : probe.list_dir(node_root)) {
    if (!starts_with(name, "node") || name.size() == 4) continue;
    std::string cpus = probe.read_line(node_root + name + "/cpulist").value_or("");
    auto meminfo = parse_colon_fields(probe.read_file(node_root + name + "/meminfo").value_or(""));
    // Per-node meminfo lines read "Node 0 MemTotal: 123 kB".
    std::string memory;
    for (const auto& [key, value] : meminfo) {
      if (key.size() >= 8 && key.compare(key.size() - 8, 8, "MemTotal") == 0) {
        memory = common::human_bytes(leading_number(value).value_or(0) * 1024ULL);
      }
    }
    table.rows.push_back({name.substr(4), cpus, memory});
  }
  section.add("numa_nodes", "NUMA nodes",
              table.rows.empty() ? "" : std::to_string(table.rows.size()),
              "/sys/devices/system/node");
  if (table.rows.size() > 1) section.tables.push_back(std::move(table));
}

void add_caches_and_clock(const Probe& probe, const std::map<std::string, std::string>& first,
                          Section& section) {
  const std::string cache_root = "/sys/devices/system/cpu/cpu0/cache/";
  int last_level = 0;
  std::string last_level_size;
  for (const auto& index : probe.list_dir(cache_root)) {
    int level = static_cast<int>(
        leading_number(probe.read_line(cache_root + index + "/level").value_or("")).value_or(0));
    auto size = probe.read_line(cache_root + index + "/size");
    if (size && level >= last_level) {
      last_level = level;
      last_level_size = *size;
    }
  }
  if (last_level > 0) {
    section.add("cpu_last_level_cache", "Last-level cache",
                "L" + std::to_string(last_level) + " " + last_level_size,
                "/sys/devices/system/cpu/cpu0/cache");
  } else if (first.count("cache size")) {
    section.add("cpu_last_level_cache", "Cache", first.at("cache size"), "/proc/cpuinfo");
  }
  if (auto max_khz = probe.read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")) {
    section.add("cpu_max_mhz", "Max clock (MHz)",
                std::to_string(leading_number(*max_khz).value_or(0) / 1000),
                "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  } else if (first.count("cpu MHz")) {
    section.add("cpu_mhz", "Clock (MHz, current)", first.at("cpu MHz"), "/proc/cpuinfo");
  }
}

}  // namespace

Section probe_cpu(const Probe& probe) {
  Section section;
  section.title = "CPU";
  auto processors = parse_colon_blocks(probe.read_file("/proc/cpuinfo").value_or(""));
  std::map<std::string, std::string> first;
  if (!processors.empty()) first = processors.front();
  section.add("cpu_model", "Model", cpu_model(first), "/proc/cpuinfo");

  Topology topology = read_topology(probe, processors);
  section.add("cpu_sockets", "Sockets", std::to_string(topology.sockets), topology.source);
  section.add("cpu_cores_per_socket", "Cores per socket",
              std::to_string(topology.physical_cores / topology.sockets), topology.source);
  section.add("cpu_cores", "Physical cores", std::to_string(topology.physical_cores),
              topology.source);
  section.add("cpu_threads", "Logical CPUs (threads)", std::to_string(topology.logical_cpus),
              topology.source);
  section.add("cpu_smt", "SMT / Hyper-Threading",
              topology.logical_cpus > topology.physical_cores ? "on" : "off", "threads vs cores");

  auto status = parse_colon_fields(probe.read_file("/proc/self/status").value_or(""));
  if (status.count("Cpus_allowed_list")) {
    auto usable = count_cpu_list(status["Cpus_allowed_list"]);
    section.facts.push_back(
        {"cpus_allowed", "CPUs usable by this process", usable ? std::to_string(*usable) : "",
         usable ? std::to_string(*usable) + " (" + status["Cpus_allowed_list"] + ")" : "",
         "/proc/self/status Cpus_allowed_list (affinity, cpuset)"});
  }
  add_numa(probe, section);
  add_caches_and_clock(probe, first, section);
  section.add("cpu_flags", "Notable ISA extensions", notable_flags(first), "/proc/cpuinfo flags");
  // The level the kernels dispatch on; runs record it as provenance cpu_isa.
  auto flags = first.find("flags");
  section.add("cpu_isa", "Vector ISA level (kernels)",
              cpu_isa_level(flags == first.end() ? "" : flags->second), "/proc/cpuinfo flags");
  return section;
}

}  // namespace scalestudy::sysinfo
