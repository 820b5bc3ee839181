// The registry of scheduler backends by name, and the default choice.
#include <cstdlib>

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sched/local_scheduler.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/slurm_scheduler.hpp"
#include "orchestrator/sched/slurmrest_scheduler.hpp"

namespace scalestudy::sched {

std::vector<std::string> scheduler_names() {
  return {"local", "slurm", "slurmrest"};
}

Result<std::unique_ptr<Scheduler>> make_scheduler(const std::string& name,
                                                  const SchedulerOptions& options) {
  if (name == "local") return std::unique_ptr<Scheduler>(new LocalScheduler(options));
  if (name == "slurm") return std::unique_ptr<Scheduler>(new SlurmScheduler(options));
  if (name == "slurmrest") {
    auto rest = SlurmRestScheduler::create(options);
    if (!rest) return rest.status();
    return std::unique_ptr<Scheduler>(std::move(*rest));
  }
  return Status::error("unknown scheduler '" + name + "' (known: local, slurm, slurmrest)");
}

std::string detect_scheduler() {
  if (const char* rest = std::getenv("SCALESTUDY_SLURMRESTD"); rest != nullptr && *rest != '\0') {
    return "slurmrest";
  }
  if (common::find_on_path("sbatch")) {
    auto answer = common::run_process({{"squeue", "-h", "-o", "%i", "--me"}, {}, 10'000});
    if (answer && answer->succeeded()) return "slurm";
  }
  return "local";
}

}  // namespace scalestudy::sched
