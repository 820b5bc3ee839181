// The batch-submission suites' fixture: a PreparedRun of `study` whose folder is
// dir/<run_id> and whose job script there holds `script` (each suite writes the directives
// it tests).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched_testing {

inline sched::PreparedRun prepared_run(const std::filesystem::path& dir, const std::string& study,
                                       const std::string& run_id, const std::string& script) {
  sched::PreparedRun run;
  run.spec.run_id = run_id;
  run.spec.study = study;
  run.out_dir = (dir / run_id).string();
  std::filesystem::create_directories(run.out_dir);
  run.script_path = run.out_dir + "/job.sbatch";
  std::ofstream(run.script_path) << script;
  return run;
}

}  // namespace scalestudy::sched_testing
