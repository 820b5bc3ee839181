// Intra-op threads for a CPU rank left on `--threads 0` (auto). LibTorch splits each op over
// its OpenMP threads (and OpenBLAS's OpenMP build over the same pool); a tiny step's ops are
// too short to pay for a parallel region's fork, join and spin-wait. So a rank gets one
// thread per kForwardFlopsPerThread of forward work per step, at least one and at most the
// cores it owns. Torch-free.
#pragma once

#include <string>

namespace scalestudy::train {

// Forward FLOPs per step per thread: a choice, not a measured optimum. Two sweeps of
// benchmarks/cpu/thread_sweep.sh (small-cnn on 2 cores, OpenBLAS, 3 repeats each) agree
// from 84 MFLOP per step, where 2 threads win (1.36x and 1.60x), and disagree below: the
// first had 1 thread ahead at 21 MFLOP (0.87x) and the two level at 42 (1.05x); the second
// (docs/performance.md, a faster host) had 2 threads ahead at both (1.15x, 1.46x). 32 MFLOP
// keeps the smallest steps, where a parallel region's fork, join and spin-wait are most of
// an op, on one thread; on the second host that cost 13% at 21 MFLOP. More hosts should
// settle it.
inline constexpr double kForwardFlopsPerThread = 32e6;

struct IntraOpThreads {
  int threads = 1;
  std::string rule;  // how `threads` was chosen, for the run's provenance
};

// `cores_per_rank`: cores / ranks on this node (the driver's default); `forward_flops_per_step`:
// this rank's forward FLOPs per step (per-sample FLOPs x per-rank batch), 0 when unknown.
IntraOpThreads choose_intra_op_threads(int cores_per_rank, double forward_flops_per_step);

}  // namespace scalestudy::train
