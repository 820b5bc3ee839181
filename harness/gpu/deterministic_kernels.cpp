#include "harness/gpu/deterministic_kernels.hpp"

#include <ATen/Context.h>

#include <cstdlib>

namespace scalestudy::gpu {

void enable_deterministic_kernels() {
  // cuBLAS reads it when a handle is created; ":4096:8" is the setting PyTorch documents.
  setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
  at::Context& context = at::globalContext();
  context.setDeterministicAlgorithms(true, /*warn_only=*/false);
  context.setDeterministicCuDNN(true);
  context.setBenchmarkCuDNN(false);
}

}  // namespace scalestudy::gpu
