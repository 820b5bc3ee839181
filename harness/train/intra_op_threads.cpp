#include "harness/train/intra_op_threads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scalestudy::train {

IntraOpThreads choose_intra_op_threads(int cores_per_rank, double forward_flops_per_step) {
  const int cores = std::max(cores_per_rank, 1);
  if (!(forward_flops_per_step > 0)) {
    return {cores, "auto: cores / ranks on this node (" + std::to_string(cores) +
                       "); forward work per step unknown"};
  }
  const double by_work = std::floor(forward_flops_per_step / kForwardFlopsPerThread);
  const int threads = static_cast<int>(std::clamp(by_work, 1.0, static_cast<double>(cores)));
  char rule[160];
  std::snprintf(rule, sizeof rule,
                "auto: %.0f MFLOP forward per step / %.0f MFLOP per thread, "
                "between 1 and cores / ranks on this node (%d)",
                forward_flops_per_step / 1e6, kForwardFlopsPerThread / 1e6, cores);
  return {threads, rule};
}

}  // namespace scalestudy::train
