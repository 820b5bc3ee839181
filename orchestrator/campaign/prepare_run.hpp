// The default PrepareRun (see submit.hpp): renders a run's sbatch script with the study
// module's renderer into <out_dir>/job.sbatch and builds its workload command line, both
// resolving binaries next to the `scalestudy` CLI. Stateless once made.
#pragma once

#include <string>

#include "orchestrator/campaign/submit.hpp"

namespace scalestudy::campaign {

struct PrepareContext {
  std::string bin_dir;       // where scalestudy, scalestudy-launch and the workloads live
  std::string profiles_dir;  // profiles/<name>.yaml, for runs with a profile other than none
};

PrepareRun make_run_preparer(const PrepareContext& context);

// The directory of the running executable (/proc/self/exe), for PrepareContext::bin_dir.
std::string executable_dir();

}  // namespace scalestudy::campaign
