// JSON for slurmrestd (every data parser this backend speaks, slurmrest_api.hpp): the job
// submit body built from a rendered script's #SBATCH options (slurmrestd does not read them
// from the script), and job states read from /slurm/.../jobs and /slurmdb/.../job answers,
// whichever version wrote them (slurmrest_values.hpp). Pure functions.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/packed_allocation.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/slurmrest_api.hpp"

namespace scalestudy::sched {

// sbatch option words ("--nodes=2", "-t", "5", "--hold") as (long name, value) pairs:
// {"nodes","2"}, {"time","5"}, {"hold",""}.
Result<std::vector<std::pair<std::string, std::string>>> parse_sbatch_options(
    const std::vector<std::string>& words);

// {"script": ..., "job": {...}} for POST /slurm/v0.0.38/job/submit, or from v0.0.40 on
// {"job": {"script": ..., ...}} in that version's shapes. `options` are the script's #SBATCH
// words followed by submit-time extras (--array, --dependency, --hold); later ones win. An
// option the REST API cannot express is an error naming it.
Result<nlohmann::json> rest_submit_body(const std::string& script_text,
                                        const std::vector<std::string>& options,
                                        const std::map<std::string, std::string>& environment,
                                        const std::string& working_directory,
                                        const RestApi& api = RestApi{});

// The job id of a submit answer, or an error with slurmrestd's messages.
Result<std::string> parse_rest_submit_response(const nlohmann::json& answer);

// States and placements (nodes, times as "2026-01-01T10:00:00Z") from GET
// /slurm/<version>/jobs (array tasks as "A_T"; pending tasks expanded).
std::map<std::string, JobStatus> parse_rest_jobs(const nlohmann::json& answer);
// The ids one entry of that answer stands for: "A_T" for an array task, every pending task
// of an array's pending entry, else the job's own.
std::vector<std::string> rest_job_ids(const nlohmann::json& job);
// States and placements from GET /slurmdb/<version>/job/ID (finished jobs slurmctld no
// longer holds).
std::map<std::string, JobStatus> parse_rest_db_jobs(const nlohmann::json& answer);

// Packed allocations and their steps from GET /slurmdb/<version>/job/ID (times as
// "2026-01-01T10:00:00Z", UTC), for packed_run_states.
std::map<std::string, AllocationRecord> parse_rest_db_allocations(const nlohmann::json& answer);

// The "errors" of an answer joined into one line ("" when none).
std::string rest_errors(const nlohmann::json& answer);

}  // namespace scalestudy::sched
