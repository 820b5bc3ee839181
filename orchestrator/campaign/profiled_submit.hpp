// Profiled runs: one extra run of a study, derived from a measured run by naming a profile,
// submitted without touching the measured runs. Its RunSpec is the measured one with
// `profile` set and the profile's `params` (profiles/<name>.yaml, e.g. profile_steps)
// merged into the workload parameters, so its run id — a hash of the content — differs
// from the measured run's and from other profiles'. The study database marks it
// profiled = 1, which keeps it out of efficiency tables. It is registered with its own
// claim (StudyState::register_profiled_run) and launched as submit launches every run
// (launch_prepared). Functions; callers own the StudyState and Scheduler.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/study/run_spec.hpp"

namespace scalestudy::campaign {

// The profiled twin of `measured`: profile and params set, run id recomputed.
RunSpec make_profiled_spec(const RunSpec& measured, const ProfileDefinition& profile);

struct ProfiledSubmission {
  std::string run_id;
  std::string out_dir;
  std::string state;             // the run's state after the call (COMPLETED, SUBMITTED, ...)
  std::string job_id;            // empty when nothing was submitted
  bool already_present = false;  // in flight or completed before this call: left alone
};

// Registers `spec` (a profiled spec) in the study database and submits it, unless it is
// already in flight or completed. `out_dir` is the run's folder (created here).
Result<ProfiledSubmission> submit_profiled_run(StudyState& state, const RunSpec& spec,
                                               const std::string& out_dir,
                                               sched::Scheduler& scheduler,
                                               const PrepareRun& prepare);

}  // namespace scalestudy::campaign
