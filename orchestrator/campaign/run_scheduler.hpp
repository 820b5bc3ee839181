// The scheduler that polls and cancels a run's job: its backend by name, configured with
// the backend settings of the run's named system (a slurmrestd URL from its system file),
// so runs of two systems on one backend are asked where they went. Pure helpers.
#pragma once

#include <string>

#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/sched/scheduler_options.hpp"

namespace scalestudy::campaign {

// Runs with equal keys are polled by one scheduler.
std::string run_scheduler_key(const RunRecord& run);

// The run's system's backend settings as the backend's options ("url" -> "--url").
sched::SchedulerOptionValues run_scheduler_values(const RunRecord& run);

}  // namespace scalestudy::campaign
