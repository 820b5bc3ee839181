// nccl-tests' bandwidth figures of a collective, spelled once for the all-reduce sweep,
// the training run's calibration and the report: algbw is the message over the time;
// busbw scales it by the fraction of the message each rank's busiest link carries, which
// for a ring all-reduce is 2(n−1)/n, so figures compare across world sizes.
// Torch-free pure functions.
#pragma once

#include <cstdint>

namespace scalestudy::bandwidth {

// busbw / algbw of an all-reduce over `ranks` ranks; 0 for a world of one (no link).
inline double allreduce_bus_factor(int ranks) {
  return ranks > 0 ? 2.0 * (ranks - 1) / ranks : 0.0;
}

// GB/s of `bytes` moved in `time_us` (bytes per microsecond are MB/s); 0 without a time.
inline double algbw_gbps(int64_t bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(bytes) / time_us / 1e3 : 0.0;
}

}  // namespace scalestudy::bandwidth
