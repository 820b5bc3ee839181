// CudaGraphStep: replays a whole training step (forward, backward, gradient all-reduces,
// optimizer update) as one CUDA graph, removing per-kernel launch cost — what keeps small
// batches from being launch-bound. For static shapes only.
//
// The step callable must be capture-safe: it reads its inputs from tensors whose storage
// never changes (copy each batch into them before run()), writes its outputs (the loss)
// into tensors it keeps, never synchronises with the host (no .item(), no blocking
// collective; ForeachSgd and NcclCommunicator's asynchronous all-reduce qualify), zeroes
// gradients in place and runs autocast with cache_casts false. fp16 loss scaling reads a
// flag on the host every step, so it cannot be captured: use bf16 or fp32.
// The first `warmup_steps` calls run eagerly on a side stream (allocating gradients,
// optimizer state, cuDNN plans); the next call captures and every later one replays.
// Host scalars are baked into kernels at capture: whatever changes between steps (the
// learning rate of ForeachSgd) must live in device memory the graph reads.
// Used by the training thread only.
#pragma once

#include <ATen/cuda/CUDAGraph.h>

#include <functional>
#include <memory>

namespace scalestudy::gpu {

class CudaGraphStep {
 public:
  explicit CudaGraphStep(std::function<void()> step, int warmup_steps = 3);

  // One training step: eager (warm-up), capture-and-replay, or replay.
  void run();
  bool captured() const { return graph_ != nullptr; }

 private:
  std::function<void()> step_;
  int warmup_left_;
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
};

}  // namespace scalestudy::gpu
