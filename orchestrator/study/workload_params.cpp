#include "orchestrator/study/workload_params.hpp"

namespace scalestudy {

std::map<std::string, std::string> workload_params(const RunSpec& spec) {
  std::map<std::string, std::string> params = spec.params;
  // Expansion refuses a batch that leaves a rank with no sample, so a positive per-rank
  // batch is exactly "the study gives a batch".
  if (spec.per_gpu_batch > 0) params["batch_size"] = std::to_string(spec.per_gpu_batch);
  return params;
}

}  // namespace scalestudy
