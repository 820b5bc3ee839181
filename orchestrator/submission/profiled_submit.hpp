// `scalestudy profile` as a library call: one extra, profiled run of a study. The measured
// run named by its id (or a unique prefix of it) gets a twin under a profile
// (<profiles_dir>/<name>.yaml), sent to the run's system's scheduler (or the one asked for)
// through campaign::submit_profiled_run, or for a dry run only prepared (its job script
// written).
#pragma once

#include <optional>
#include <string>

#include "orchestrator/campaign/profiled_submit.hpp"
#include "orchestrator/study/study.hpp"
#include "orchestrator/submission/submit_request.hpp"

namespace scalestudy::submission {

struct ProfileRequest {
  Study study;
  std::string run;      // the measured run's id, or a unique prefix of it
  std::string profile;  // the profile's name
  std::string profiles_dir;
  std::string results_dir;
  std::optional<std::string> scheduler;  // unset: the run's system's, else the one detected
  bool dry_run = false;
};

struct ProfiledOutcome {
  std::optional<SubmitFailure> failure;  // the rest is set only without one
  RunSpec measured;
  RunSpec spec;  // the profiled twin
  std::string profile_name;
  std::string script_path;                 // a dry run's job script
  campaign::ProfiledSubmission submitted;  // otherwise
  bool ran_inside_submit = false;          // the scheduler ran it before returning (local)
};

ProfiledOutcome submit_profiled(const ProfileRequest& request);

}  // namespace scalestudy::submission
