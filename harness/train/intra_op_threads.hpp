// Intra-op threads for a CPU rank left on `--threads 0` (auto). LibTorch splits each op over
// its OpenMP threads (and OpenBLAS's OpenMP build over the same pool); a tiny step's ops are
// too short to pay for a parallel region's fork, join and spin-wait. So a rank gets one
// thread per kForwardFlopsPerThread of forward work per step, at least one and at most the
// cores it owns. Torch-free.
#pragma once

#include <string>

namespace scalestudy::train {

// Forward FLOPs per step per thread: a choice, not a measured optimum. The one sweep
// (docs/performance.md, small-cnn on 2 cores, OpenBLAS, 3 repeats) had 2 threads clearly
// ahead from 84 MFLOP per step (1.36x) and 168 (1.74x); at 21 and 42 MFLOP the two were
// within that machine's noise (0.87x and 1.05x, and a later round had 2 threads ahead
// there), so any grain from about 20 to 80 MFLOP fits it. 32 MFLOP keeps the smallest
// steps, where a parallel region's fork, join and spin-wait are most of an op, on one thread.
inline constexpr double kForwardFlopsPerThread = 32e6;

struct IntraOpThreads {
  int threads = 1;
  std::string rule;  // how `threads` was chosen, for the run's provenance
};

// `cores_per_rank`: cores / ranks on this node (the driver's default); `forward_flops_per_step`:
// this rank's forward FLOPs per step (per-sample FLOPs x per-rank batch), 0 when unknown.
IntraOpThreads choose_intra_op_threads(int cores_per_rank, double forward_flops_per_step);

}  // namespace scalestudy::train
