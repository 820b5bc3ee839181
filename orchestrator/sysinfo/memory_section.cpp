#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

// The memory limit of this process's cgroup (v2 memory.max, else v1
// memory.limit_in_bytes); inside a SLURM job this is the job's --mem.
void add_cgroup_limit(const Probe& probe, unsigned long long ram_bytes, Section& section) {
  for (const auto& line : split_lines(probe.read_file("/proc/self/cgroup").value_or(""))) {
    auto fields = split(line, ':');
    if (fields.size() < 3) continue;
    std::string file;
    if (fields[0] == "0" && fields[1].empty()) {
      file = "/sys/fs/cgroup" + fields[2] + "/memory.max";
    } else if (fields[1] == "memory") {
      file = "/sys/fs/cgroup/memory" + fields[2] + "/memory.limit_in_bytes";
    } else {
      continue;
    }
    auto limit = leading_number(probe.read_line(file).value_or(""));
    // v1 reports "no limit" as a huge page-aligned number; v2 as "max".
    if (limit && *limit < ram_bytes) {
      section.add_bytes("cgroup_memory_limit_bytes", "Memory limit of this cgroup (job)", *limit,
                        file);
      return;
    }
  }
}

}  // namespace

Section probe_memory(const Probe& probe) {
  Section section;
  section.title = "Memory";
  auto meminfo = parse_colon_fields(probe.read_file("/proc/meminfo").value_or(""));
  auto kib = [&](const char* key) { return leading_number(meminfo[key]).value_or(0) * 1024ULL; };
  unsigned long long total_bytes = kib("MemTotal");
  if (total_bytes == 0) {
    section.add("memory_total_bytes", "System RAM", "", "/proc/meminfo (unreadable)");
    return section;
  }
  section.add_bytes("memory_total_bytes", "System RAM", total_bytes, "/proc/meminfo MemTotal");
  section.add_bytes("memory_available_bytes", "Available now", kib("MemAvailable"),
                    "/proc/meminfo MemAvailable");
  section.add_bytes("swap_total_bytes", "Swap", kib("SwapTotal"), "/proc/meminfo SwapTotal");
  if (auto huge_pages = leading_number(meminfo["HugePages_Total"]); huge_pages && *huge_pages) {
    section.add("huge_pages", "Huge pages",
                std::to_string(*huge_pages) + " x " + meminfo["Hugepagesize"],
                "/proc/meminfo HugePages_Total");
  }
  add_cgroup_limit(probe, total_bytes, section);
  return section;
}

}  // namespace scalestudy::sysinfo
