#include "orchestrator/sched/partition_times.hpp"

#include <sstream>

#include "orchestrator/study/scalar_values.hpp"

namespace scalestudy::sched {

std::optional<TimeCap> tighter_cap(const std::optional<TimeCap>& a,
                                   const std::optional<TimeCap>& b) {
  if (!a) return b;
  if (!b) return a;
  return a->minutes <= b->minutes ? a : b;
}

std::optional<TimeCap> system_time_cap(const RunSpec& run) {
  if (!run.system.named || run.system.max_time_minutes <= 0) return std::nullopt;
  return TimeCap{run.system.max_time_minutes, "limits.max_time of system " + run.system.label()};
}

PartitionTimes parse_scontrol_partitions(const std::string& scontrol_output) {
  PartitionTimes partitions;
  std::stringstream lines(scontrol_output);
  for (std::string line; std::getline(lines, line);) {
    std::map<std::string, std::string> fields;
    std::stringstream words(line);
    for (std::string word; words >> word;) {
      const size_t equals = word.find('=');
      if (equals != std::string::npos) fields[word.substr(0, equals)] = word.substr(equals + 1);
    }
    const std::string name = fields["PartitionName"];
    if (name.empty()) continue;
    if (fields["Default"] == "YES") partitions.default_partition = name;
    if (auto minutes = parse_time_limit_minutes(fields["MaxTime"]); minutes && *minutes > 0) {
      partitions.max_minutes[name] = *minutes;
    }
  }
  return partitions;
}

std::optional<TimeCap> allocation_time_cap(const PartitionTimes& partitions, const RunSpec& run) {
  const std::string& name =
      run.slurm.partition.empty() ? partitions.default_partition : run.slurm.partition;
  std::optional<TimeCap> partition_cap;
  if (auto found = partitions.max_minutes.find(name); found != partitions.max_minutes.end()) {
    partition_cap = TimeCap{found->second, "MaxTime of partition " + name};
  }
  return tighter_cap(partition_cap, system_time_cap(run));
}

}  // namespace scalestudy::sched
