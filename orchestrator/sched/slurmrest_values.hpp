// Values as slurmrestd's data parsers write them, read alike whatever the version: v0.0.38
// writes bare numbers and a job state as one word; from v0.0.40 on numbers are
// {"set", "infinite", "number"} and states are flag lists (["PENDING", "REQUEUED"]). Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace scalestudy::sched {

// A whole number, bare or {set: true, infinite: false, number: N}; anything else (null,
// unset, infinite): none.
std::optional<long long> rest_number(const nlohmann::json& value);

// A job or step state as one word, as sacct and v0.0.38 spell it: a string as it is; a flag
// list as SLURM's job_state_string() names it, the first of COMPLETING, STAGE_OUT,
// CONFIGURING, RESIZING, REQUEUED, REQUEUE_FED, REQUEUE_HOLD, SPECIAL_EXIT, STOPPED,
// REVOKED, RESV_DEL_HOLD, SIGNALING among the flags, else the base state (the first).
std::string rest_state(const nlohmann::json& value);

// A job's exit code: v0.0.38's bare number in /slurm/.../jobs, or the return_code of the
// {status, return_code, signal} object (every version's accounting, v0.0.40's jobs); a
// job killed by a signal reads 128 + signal, as sacct's "0:<signal>" does.
std::optional<int> rest_exit_code(const nlohmann::json& value);

}  // namespace scalestudy::sched
