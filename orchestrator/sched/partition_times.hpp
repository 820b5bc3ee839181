// The longest job each partition takes (MaxTime), which caps a packed allocation: read from
// `scontrol show partition -o` or slurmrestd's /partitions, and the cap for one partition
// together with its system's limits.max_time. Parsing is pure.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::sched {

// The longest an allocation may ask for, and who says so ("MaxTime of partition small").
struct TimeCap {
  int minutes = 0;
  std::string source;
};

// The tighter of two caps, either absent.
std::optional<TimeCap> tighter_cap(const std::optional<TimeCap>& a,
                                   const std::optional<TimeCap>& b);

// The system's own limit for a run: limits.max_time of its named system, when stated.
std::optional<TimeCap> system_time_cap(const RunSpec& run);

struct PartitionTimes {
  std::map<std::string, int> max_minutes;  // partitions with a MaxTime; UNLIMITED: absent
  std::string default_partition;           // the one a job without --partition goes to
};

// `scontrol show partition -o`: one line of KEY=VALUE words per partition.
PartitionTimes parse_scontrol_partitions(const std::string& scontrol_output);

// The cap of a run's allocation: its partition's MaxTime (an empty name: the default
// partition's) and its system's limits.max_time, the tighter; nothing when neither is known.
std::optional<TimeCap> allocation_time_cap(const PartitionTimes& partitions, const RunSpec& run);

}  // namespace scalestudy::sched
