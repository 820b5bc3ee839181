#include "orchestrator/sysinfo/debian_packages.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

// The line of a failed SLURM command that says why: its "fatal:" line, else its last.
std::string failure_reason(const CommandOutput& output) {
  std::string reason;
  for (const auto& line : split_lines(output.stderr_text + "\n" + output.stdout_text)) {
    if (trim(line).empty()) continue;
    if (line.find("fatal") != std::string::npos) return trim(line);
    if (reason.empty()) reason = trim(line);
  }
  return reason.empty() ? "exit code " + std::to_string(output.exit_code) : reason;
}

void add_cluster_name(const Probe& probe, Section& section) {
  auto config = probe.run({"scontrol", "show", "config"});
  if (!config || !config->succeeded()) return;
  for (const auto& line : split_lines(config->stdout_text)) {
    auto equals = line.find('=');
    if (equals != std::string::npos && trim(line.substr(0, equals)) == "ClusterName") {
      section.add("slurm_cluster", "Cluster", trim(line.substr(equals + 1)),
                  "`scontrol show config` ClusterName");
    }
  }
}

void add_partitions(const CommandOutput& sinfo, Section& section) {
  Table table{
      "Partitions",
      {"Partition", "State", "Time limit", "Nodes", "CPUs/node", "Memory/node (MB)", "GRES"},
      {}};
  std::string names, default_partition;
  for (const auto& line : split_lines(sinfo.stdout_text)) {
    auto fields = split(line, '|');
    if (fields.size() < 7) continue;
    std::string name = fields[0];
    if (!name.empty() && name.back() == '*') {
      name.pop_back();
      default_partition = name;
    }
    names += (names.empty() ? "" : ",") + name;
    table.rows.push_back(
        {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]});
  }
  section.add("slurm_partitions", "Partitions", names, "`sinfo -h -o %P|%a|%l|%D|%c|%m|%G`");
  section.add("slurm_default_partition", "Default partition", default_partition, "sinfo (*)");
  section.tables.push_back(std::move(table));
}

void add_qos(const Probe& probe, Section& section) {
  auto qos = probe.run({"sacctmgr", "-n", "-P", "show", "qos",
                        "format=Name,Priority,MaxWall,MaxTRESPU,MaxJobsPU,MaxSubmitPU"});
  if (!qos) return;  // sacctmgr is optional (no accounting database)
  if (!qos->succeeded()) {
    section.notes.push_back("QOS limits unavailable: `sacctmgr show qos` failed: " +
                            failure_reason(*qos));
    return;
  }
  Table table{"QOS limits",
              {"QOS", "Priority", "Max wall time", "Max TRES per user", "Max jobs per user",
               "Max submitted per user"},
              {}};
  for (const auto& line : split_lines(qos->stdout_text)) {
    auto fields = split(line, '|');
    if (fields.empty() || fields[0].empty()) continue;
    fields.resize(6);
    table.rows.push_back(fields);
  }
  if (!table.rows.empty()) section.tables.push_back(std::move(table));
}

}  // namespace

Section probe_slurm(const Probe& probe) {
  Section section;
  section.title = "SLURM";
  if (!probe.find_program("sinfo")) {
    section.add("slurm_status", "SLURM", "not installed", "sinfo not on PATH");
    return section;
  }
  auto version = probe.run({"sinfo", "--version"});
  if (version && version->succeeded()) {
    section.add("slurm_version", "Version", first_line(version->stdout_text), "`sinfo --version`");
  } else if (auto package = debian_package_version(probe, "slurm-client"); !package.empty()) {
    section.add("slurm_version", "Version", "slurm " + package,
                "/var/lib/dpkg/status (slurm-client)");
  }
  auto sinfo = probe.run({"sinfo", "-h", "-o", "%P|%a|%l|%D|%c|%m|%G"});
  if (!sinfo || !sinfo->succeeded()) {
    std::string reason = sinfo ? failure_reason(*sinfo) : sinfo.status().message();
    section.add("slurm_status", "SLURM", "not configured", "`sinfo`: " + reason);
    section.facts.back().display = "installed but not configured or unreachable";
    return section;
  }
  section.add("slurm_status", "SLURM", "available", "`sinfo`");
  add_cluster_name(probe, section);
  add_partitions(*sinfo, section);
  add_qos(probe, section);
  return section;
}

}  // namespace scalestudy::sysinfo
