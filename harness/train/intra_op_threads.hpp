// Intra-op threads for a CPU rank left on `--threads 0` (auto). LibTorch splits each op over
// its OpenMP threads (and OpenBLAS's OpenMP build over the same pool); a tiny step's ops are
// too short to pay for a parallel region's fork, join and spin-wait. So a rank gets one
// thread per kForwardFlopsPerThread of forward work per step, at least one and at most the
// cores it owns. Torch-free.
#pragma once

#include <string>

namespace scalestudy::train {

// Forward FLOPs per step that make one more thread pay. Measured (docs/performance.md,
// small-cnn on 2 cores, OpenBLAS): 2 threads ran 0.87x of 1 at 21 MFLOP per step, 1.05x at
// 42, 1.36x at 84 and 1.74x at 168.
inline constexpr double kForwardFlopsPerThread = 32e6;

struct IntraOpThreads {
  int threads = 1;
  std::string rule;  // how `threads` was chosen, for the run's provenance
};

// `cores_per_rank`: cores / ranks on this node (the driver's default); `forward_flops_per_step`:
// this rank's forward FLOPs per step (per-sample FLOPs x per-rank batch), 0 when unknown.
IntraOpThreads choose_intra_op_threads(int cores_per_rank, double forward_flops_per_step);

}  // namespace scalestudy::train
