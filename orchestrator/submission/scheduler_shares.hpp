// The runs each scheduler of a submit submits: a named system's runs go to its backend,
// configured with the system's own settings under the request's; the other runs to the
// requested scheduler, else the backend detected. One share per system, so a packed
// allocation never mixes two partitions.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler_options.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::submission {

struct SchedulerShare {
  std::string scheduler;
  sched::SchedulerOptionValues values;
  std::string system;  // the named system's label; empty for runs without one
  std::set<std::string> run_ids;
};

// `given`: the scheduler asked for, if any; `values`: the options asked for. An error when
// the asked scheduler cannot reach a named system.
Result<std::vector<SchedulerShare>> scheduler_shares(const Study& study,
                                                     const std::optional<std::string>& given,
                                                     const sched::SchedulerOptionValues& values);

// `study` with only the runs of `share`, for the checks that look at what one scheduler runs.
Study study_share(const Study& study, const SchedulerShare& share);

}  // namespace scalestudy::submission
