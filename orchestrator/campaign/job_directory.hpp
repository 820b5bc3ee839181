// Directories a run's job writes (its run directory, the job arrays' folder) made ready for
// the account the job runs as (Scheduler::job_user). With a REST backend that is the token's
// user, often not the submitter (`nobody` when root uses the test cluster's env.sh): a job that
// cannot create its output file fails at launch with nothing but SLURM's "JobLaunchFailure", so
// this is settled before anything is submitted. Functions; they touch only the given directory.
#pragma once

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::campaign {

// Creates `dir` (and missing parents), mode 0750; one already there must be a folder owned by
// this process's user or `job_user` (common/safe_files.hpp). When `job_user` is set and is
// not this process's user: checks that the user may enter every folder above it (a results
// folder made by mktemp -d, mode 0700, stops it); as root, hands `dir` to that user (owner
// and primary group); otherwise checks that the user may write it. An error says what to
// change.
Status prepare_job_directory(const std::string& dir, const std::string& job_user);

// Why the owner of `dir` (the job's user, once prepare_job_directory handed it over) cannot
// reach it now, said as prepare_job_directory says it; ok when it can, when root owns it, or
// when `dir` is gone. An allocation that failed before its first step (sacct 0:53) names
// its cause with it: the node's "Permission denied" is only in slurmd's log.
Status check_reachable_by_owner(const std::string& dir);

}  // namespace scalestudy::campaign
