// What a run's directory says about how it ended, for runs whose scheduler can no longer
// tell (a run whose submitter was interrupted: the process group is gone and nobody
// saw it exit). Every rank database present and marked completed means the run
// completed; anything else says nothing. Reads the rank files read-only. Stateless.
#pragma once

#include <string>

namespace scalestudy::campaign {

// Whether rank0..rank<world_size-1>.sqlite in `out_dir` all exist and record status
// 'completed'.
bool run_directory_shows_completed(const std::string& out_dir, int world_size);

}  // namespace scalestudy::campaign
