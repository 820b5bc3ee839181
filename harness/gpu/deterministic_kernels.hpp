// Deterministic kernels for runs that must be bit-comparable (`--deterministic`), as
// Python's torch.use_deterministic_algorithms(True) with its documented companions: every
// operator takes its deterministic algorithm or fails naming itself (no silent
// nondeterminism), cuDNN picks deterministic convolutions and no autotuned ones, and cuBLAS
// gets the fixed workspace (CUBLAS_WORKSPACE_CONFIG) its deterministic reductions need.
// Process-wide: call once at start up, before the first cuBLAS handle (the first matmul)
// and before any thread trains.
#pragma once

namespace scalestudy::gpu {

// Also turns cuDNN's autotuner off (it picks algorithms by timing them); sets
// CUBLAS_WORKSPACE_CONFIG=:4096:8 unless the environment already chose one.
void enable_deterministic_kernels();

}  // namespace scalestudy::gpu
