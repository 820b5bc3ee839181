// Profiled runs: one extra run of a study, derived from a measured run by naming a profile,
// submitted without touching the measured runs. Its RunSpec is the measured one with
// `profile` set and the profile's `params` (profiles/<name>.yaml, e.g. profile_steps)
// merged into the workload parameters, so its run id — a hash of the content — differs
// from the measured run's and from other profiles'. The study database marks it
// profiled = 1, which keeps it out of efficiency tables.
//
// Registration writes the run's row directly as SUBMITTING with this process's claim (the
// sched module's claim_runs would claim every planned run of the study), then submission,
// recording and release go through sched's public StudyState and Scheduler. Functions;
// callers own the StudyState and Scheduler.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::profiling {

struct ProfileDefinition {
  std::string name;
  std::map<std::string, std::string> params;  // workload parameters a profiled run adds
  std::vector<std::string> wrapper;           // launch-line words (see job_script.hpp)
};

// Reads profiles/<name>.yaml; errors name the file, position and field.
Result<ProfileDefinition> load_profile_definition(const std::string& profiles_dir,
                                                  const std::string& name);

// The profiled twin of `measured`: profile and params set, run id recomputed.
RunSpec make_profiled_spec(const RunSpec& measured, const ProfileDefinition& profile);

// The wrapper words with {{out_dir}} and {{run_id}} replaced, the first resolved on PATH
// so the local backend can execute it (it starts argv[0] without a PATH search).
Result<std::vector<std::string>> local_wrapper_argv(const ProfileDefinition& profile,
                                                    const std::string& out_dir,
                                                    const std::string& run_id);

// A PrepareRun that renders the job script as `base` does and, for the local backend, puts
// the profile's wrapper in front of the workload command line.
campaign::PrepareRun make_profiled_preparer(campaign::PrepareRun base, ProfileDefinition profile);

struct ProfiledSubmission {
  std::string run_id;
  std::string out_dir;
  std::string state;             // the run's state after the call (COMPLETED, SUBMITTED, ...)
  std::string job_id;            // empty when nothing was submitted
  bool already_present = false;  // in flight or completed before this call: left alone
};

// Registers `spec` (a profiled spec) in the study database and submits it, unless it is
// already in flight or completed. `out_dir` is the run's folder (created here).
Result<ProfiledSubmission> submit_profiled_run(campaign::StudyState& state, const RunSpec& spec,
                                               const std::string& out_dir,
                                               sched::Scheduler& scheduler,
                                               const campaign::PrepareRun& prepare);

}  // namespace scalestudy::profiling
