// The parameters a run's workload receives. A RunSpec keeps its batch once, as typed fields
// (global_batch, per_gpu_batch); the workload's `batch_size` parameter — the per-rank
// batch — is derived from them here, for the command line, the environment, the flag
// checks, the run id's hashed content and the stored record alike. Pure function.
#pragma once

#include <map>
#include <string>

#include "orchestrator/study/run_spec.hpp"

namespace scalestudy {

// spec.params plus batch_size = per_gpu_batch when the study gives a batch.
std::map<std::string, std::string> workload_params(const RunSpec& spec);

}  // namespace scalestudy
