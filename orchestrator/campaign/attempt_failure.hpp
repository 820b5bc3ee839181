// The failure class of a run's attempt, decided where its evidence is read: the status its
// scheduler reported, and the last lines of the logs in the run's folder (rank<r>.log, the
// job's slurm-<job>.out/.err). StudyState::record_job_status stores it beside the attempt.
// Reads files only.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/common/failure_class.hpp"

namespace scalestudy::campaign {

// The last lines of the logs of job `job_id`'s run in `out_dir`, ranks first, each with how
// long before the attempt's end (`status`'s placement, else now) it was last written;
// missing files are left out.
std::vector<common::LogTail> read_run_log_tails(const common::JobStatus& status,
                                                const std::string& out_dir,
                                                const std::string& job_id, int world_size);

// common::classify_failure over those logs, with the job's time limit when it has one.
common::Failure classify_attempt(const common::JobStatus& status, const std::string& out_dir,
                                 const std::string& job_id, int world_size,
                                 const common::TimeLimit& limit = {});

}  // namespace scalestudy::campaign
