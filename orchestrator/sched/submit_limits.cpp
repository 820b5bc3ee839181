#include "orchestrator/sched/submit_limits.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "harness/core/whole_number.hpp"
#include "orchestrator/sched/slurm_states.hpp"

namespace scalestudy::sched {
namespace {

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  for (std::string field; std::getline(stream, field, '|');) fields.push_back(field);
  return fields;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// A limit as sacctmgr prints it: a positive whole number; empty (unlimited) gives nothing.
std::optional<int> limit_value(const std::string& text) {
  auto value = parse_whole_number("limit", text);
  if (!value || *value < 0) return std::nullopt;
  return *value;
}

}  // namespace

void keep_tighter(std::optional<SubmitLimit>& tightest, int jobs, const std::string& source) {
  if (!tightest || jobs < tightest->jobs) tightest = SubmitLimit{jobs, source};
}

std::optional<int> parse_max_array_size(const std::string& scontrol_config) {
  for (const std::string& line : lines_of(scontrol_config)) {
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string key = line.substr(0, equals);
    key.erase(key.find_last_not_of(' ') + 1);
    if (key != "MaxArraySize") continue;
    std::string value = line.substr(equals + 1);
    value.erase(0, value.find_first_not_of(' '));
    return limit_value(value);
  }
  return std::nullopt;
}

std::optional<SubmitLimit> tightest_submit_limit(const std::string& associations,
                                                 const std::string& qos_limits,
                                                 const std::string& user) {
  std::map<std::string, std::optional<int>> qos_limit;
  for (const std::string& line : lines_of(qos_limits)) {
    auto fields = fields_of(line);
    if (fields.size() >= 2) qos_limit[fields[0]] = limit_value(fields[1]);
  }
  std::optional<SubmitLimit> tightest;
  for (const std::string& line : lines_of(associations)) {
    auto fields = fields_of(line);  // MaxSubmitJobs|DefaultQOS|QOS
    fields.resize(3);
    if (auto jobs = limit_value(fields[0])) {
      keep_tighter(tightest, *jobs, "MaxSubmitJobs=" + fields[0] + " for user " + user);
    }
    // Jobs go to the association's default QOS; without one, to the first it may use.
    std::string qos = fields[1].empty() ? fields[2].substr(0, fields[2].find(',')) : fields[1];
    auto found = qos_limit.find(qos);
    if (found != qos_limit.end() && found->second) {
      keep_tighter(tightest, *found->second,
                   "MaxSubmitPU=" + std::to_string(*found->second) + " of QOS " + qos);
    }
  }
  return tightest;
}

std::optional<std::string> submit_limit_refusal(const std::string& message) {
  static const char* kRefusals[] = {"QOSMaxSubmitJobPerUserLimit", "QOSMaxSubmitJobPerAccountLimit",
                                    "QOSGrpSubmitJobsLimit",       "AssocMaxSubmitJobLimit",
                                    "AssocGrpSubmitJobsLimit",     "MaxSubmitJobsPerUser"};
  for (const char* refusal : kRefusals) {
    if (message.find(refusal) != std::string::npos) return std::string(refusal);
  }
  // slurmrestd gives only SLURM's generic text, which also covers size and time limits;
  // sbatch names those (QOSMaxWallDurationPerJobLimit, ...) next to it, so a generic text
  // with no other limit named is the submit limit.
  if (message.find("job submit limit") != std::string::npos &&
      message.find("Limit") == std::string::npos) {
    return std::string("job submit limit");
  }
  return std::nullopt;
}

std::vector<std::vector<size_t>> fit_wave(const std::vector<std::vector<size_t>>& groups,
                                          const WaveCapacity& capacity) {
  const size_t array_size =
      capacity.max_array_size && *capacity.max_array_size > 0 ? *capacity.max_array_size : 0;
  size_t slots_left = capacity.free_slots ? static_cast<size_t>(std::max(0, *capacity.free_slots))
                                          : static_cast<size_t>(-1);
  std::vector<std::vector<size_t>> wave;
  for (const auto& group : groups) {
    for (size_t start = 0; start < group.size() && slots_left > 0;) {
      size_t take = std::min(group.size() - start, slots_left);
      if (array_size > 0) take = std::min(take, array_size);
      wave.emplace_back(group.begin() + start, group.begin() + start + take);
      start += take;
      slots_left -= take;
    }
  }
  return wave;
}

WaveCapacity read_wave_capacity(const SlurmCommand& run, const std::string& user) {
  WaveCapacity capacity;
  if (auto config = run({"scontrol", "show", "config"})) {
    capacity.max_array_size = parse_max_array_size(*config);
  }
  if (auto partitions = run({"scontrol", "show", "partition", "-o"})) {
    capacity.partitions = parse_scontrol_partitions(*partitions);
  }
  auto associations = run({"sacctmgr", "-n", "-P", "show", "assoc", "where", "users=" + user,
                           "format=MaxSubmitJobs,DefaultQOS,QOS"});
  auto qos = run({"sacctmgr", "-n", "-P", "show", "qos", "format=Name,MaxSubmitPU"});
  if (!associations || !qos) return capacity;
  auto limit = tightest_submit_limit(*associations, *qos, user);
  if (!limit) return capacity;
  // Every array task, pending or running, holds a slot: -r lists one per line.
  auto queued = run({"squeue", "-h", "-r", "-u", user, "-o", "%i"});
  if (!queued) return capacity;
  size_t in_queue = 0;
  for (const std::string& job_id : lines_of(*queued))
    in_queue += expand_array_job_id(job_id).size();
  capacity.free_slots = std::max(0, limit->jobs - static_cast<int>(in_queue));
  capacity.limit = limit->source;
  return capacity;
}

}  // namespace scalestudy::sched
