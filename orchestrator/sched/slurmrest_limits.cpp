#include "orchestrator/sched/slurmrest_limits.hpp"

#include <limits>
#include <map>

#include "orchestrator/common/job_state.hpp"
#include "orchestrator/sched/slurm_states.hpp"
#include "orchestrator/sched/slurmrest_json.hpp"
#include "orchestrator/sched/slurmrest_values.hpp"

namespace scalestudy::sched {
namespace {

using nlohmann::json;

// A limit slurmrestd gives: a whole number ≥ 0, bare (v0.0.38) or in the newer
// {"set", "infinite", "number"} shape (v0.0.39 on); null, unset, infinite (also spelt
// 4294967295) or anything else: none.
std::optional<int> limit_at(const json& value, std::initializer_list<const char*> path) {
  const json* node = &value;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return std::nullopt;
    node = &(*node)[key];
  }
  auto number = rest_number(*node);
  if (!number || *number < 0 || *number > std::numeric_limits<int>::max()) {
    return std::nullopt;  // unlimited (slurmrestd also spells it 4294967295)
  }
  return static_cast<int>(*number);
}

}  // namespace

std::optional<SubmitLimit> rest_submit_limit(const json& associations, const json& qos,
                                             const std::string& user) {
  std::map<std::string, std::optional<int>> per_user;
  // v0.0.38 lists them under "QOS", v0.0.40 on under "qos".
  for (const json& entry : qos.value(qos.contains("qos") ? "qos" : "QOS", json::array())) {
    per_user[entry.value("name", "")] = limit_at(entry, {"limits", "max", "jobs", "per", "user"});
  }
  std::optional<SubmitLimit> tightest;
  for (const json& association : associations.value("associations", json::array())) {
    if (!association.value("user", json()).is_string() || association["user"] != user) continue;
    if (auto jobs = limit_at(association, {"max", "jobs", "total"})) {
      keep_tighter(tightest, *jobs, "MaxSubmitJobs=" + std::to_string(*jobs) + " for user " + user);
    }
    // Jobs go to the association's default QOS; without one, to the first it may use.
    std::string name;
    const json default_qos = association.value("default", json::object()).value("qos", json());
    if (default_qos.is_string() && !default_qos.get<std::string>().empty()) {  // v0.0.40 on: ""
      name = default_qos.get<std::string>();
    } else if (auto listed = association.value("qos", json::array());
               listed.is_array() && !listed.empty() && listed[0].is_string()) {
      name = listed[0].get<std::string>();
    }
    auto found = per_user.find(name);
    if (found != per_user.end() && found->second) {
      keep_tighter(tightest, *found->second,
                   "MaxSubmitPU=" + std::to_string(*found->second) + " of QOS " + name);
    }
  }
  return tightest;
}

int rest_queued_jobs(const json& jobs, const std::string& user) {
  int queued = 0;
  for (const json& job : jobs.value("jobs", json::array())) {
    if (job.value("user_name", "") != user) continue;
    auto status = make_slurm_status(rest_state(job.value("job_state", json())), std::nullopt, "");
    if (!status || is_terminal(status->state)) continue;
    queued += static_cast<int>(rest_job_ids(job).size());
  }
  return queued;
}

PartitionTimes rest_partition_times(const json& partitions) {
  PartitionTimes times;
  for (const json& partition : partitions.value("partitions", json::array())) {
    const std::string name = partition.value("name", "");
    if (name.empty()) continue;
    // v0.0.38's "default", v0.0.45's "DEFAULT"; v0.0.40-44 do not say which is the default.
    const json flags = partition.value("flags", json::array());
    for (const json& flag : flags.is_array() ? flags : json::array()) {
      if (flag == "default" || flag == "DEFAULT") times.default_partition = name;
    }
    // v0.0.38's max_time_limit; v0.0.39 on, maximums.time.
    auto minutes = limit_at(partition, {"max_time_limit"});
    if (!minutes) minutes = limit_at(partition, {"maximums", "time"});
    if (minutes && *minutes > 0) times.max_minutes[name] = *minutes;
  }
  return times;
}

}  // namespace scalestudy::sched
