// launch_prepared: hands claimed, prepared runs to their scheduler and keeps the study
// database in step with what it reports — each run recorded SUBMITTED under the claim the
// moment its job id exists (before its processes start, for backends that can hold them),
// its end recorded when the backend runs it to completion, and the claim of every run not
// submitted released — a run a submit limit holds back as PLANNED, waiting for a free slot
// (kReasonWaitingForSlot), not as an error. Shared by submit_study and profiled runs. A
// function; callers own the StudyState and Scheduler.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/common/fault_injection.hpp"
#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::campaign {

struct LaunchHooks {
  std::function<void(const std::string& line)> log;  // progress lines; may be empty
  common::FaultInjector* faults = nullptr;           // the submit.* points; may be null
};

struct LaunchOutcome {
  std::vector<sched::Submission> submitted;
  std::vector<std::string> waiting;  // held back by a submit limit, for a later wave
  std::vector<std::string> errors;   // "run <id>: <why>" for runs not submitted
};

// An error when a submission or an end could not be recorded (the runs stay with the
// scheduler; their claims are not released).
Result<LaunchOutcome> launch_prepared(StudyState& state, sched::Scheduler& scheduler,
                                      const std::vector<sched::PreparedRun>& prepared,
                                      const std::string& claim_token, const LaunchHooks& hooks);

}  // namespace scalestudy::campaign
