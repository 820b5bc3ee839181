// The default PrepareRun (see submit.hpp): loads a run's profile (profiles/<name>.yaml) and
// hands the run to its scheduler, which writes what it will execute into the run's folder
// (Scheduler::prepare), binaries resolved next to the `scalestudy` CLI. Stateless once made.
#pragma once

#include <string>

#include "orchestrator/campaign/submit.hpp"

namespace scalestudy::campaign {

struct PrepareContext {
  std::string bin_dir;       // where scalestudy, scalestudy-launch and the workloads live
  std::string profiles_dir;  // profiles/<name>.yaml, for runs with a profile other than none
};

// What a backend needs to prepare `spec` in `out_dir`; an error for an unreadable profile.
Result<sched::RunPreparation> run_preparation(const PrepareContext& context, const RunSpec& spec,
                                              const std::string& out_dir, bool profiled = false);

// Prepares runs through `scheduler`, which must outlive the returned function. `profiled`:
// the runs are extra profiled runs (`scalestudy profile`).
PrepareRun make_run_preparer(const PrepareContext& context, const sched::Scheduler& scheduler,
                             bool profiled = false);

// The directory of the running executable (/proc/self/exe), for PrepareContext::bin_dir.
std::string executable_dir();

}  // namespace scalestudy::campaign
