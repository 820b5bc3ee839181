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

// common::classify_failure over those logs, with the job's time limit when it has one; a
// hang's evidence adds the ranks that were not in a collective while the others waited in
// one, read from the watchdog's stacks/rank<r>.txt (common/collective_stacks.hpp); a setup
// failure before the job launched, the folder its user cannot enter now.
common::Failure classify_attempt(const common::JobStatus& status, const std::string& out_dir,
                                 const std::string& job_id, int world_size,
                                 const common::TimeLimit& limit = {});

}  // namespace scalestudy::campaign
