// What bounds a submission wave, as slurmrestd shows it (v0.0.38 and v0.0.40 on alike: the
// paths below are the same, the values' shapes are read by slurmrest_values.hpp), so the slurmrest
// backend waves as the slurm one does (submit_limits.hpp): the user's associations'
// MaxSubmitJobs (/slurmdb/.../associations?user=U: max.jobs.total) and the MaxSubmitPU of
// the QOS their jobs go to (/slurmdb/.../qos: limits.max.jobs.per.user), the jobs the user
// holds in the queue (/slurm/.../jobs, every array task one), and each partition's MaxTime
// (/slurm/.../partitions: max_time_limit, from v0.0.39 on maximums.time). slurmrestd has no
// endpoint for slurm.conf, so MaxArraySize stays unknown there. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "orchestrator/sched/partition_times.hpp"
#include "orchestrator/sched/submit_limits.hpp"

namespace scalestudy::sched {

std::optional<SubmitLimit> rest_submit_limit(const nlohmann::json& associations,
                                             const nlohmann::json& qos, const std::string& user);

// Jobs and array tasks of `user` that hold a submit slot: every one not yet ended.
int rest_queued_jobs(const nlohmann::json& jobs, const std::string& user);

PartitionTimes rest_partition_times(const nlohmann::json& partitions);

}  // namespace scalestudy::sched
