// CudaGraphStep: replays a whole training step (forward, backward, gradient all-reduces,
// optimizer update) as one CUDA graph, removing per-kernel launch cost — what keeps small
// batches from being launch-bound. For static shapes only.
//
// The step callable must be capture-safe: it reads its inputs from tensors whose storage
// never changes (copy each batch into them before run()), writes its outputs (the loss)
// into tensors it keeps, never synchronises with the host (no .item(), no blocking
// collective; ForeachSgd, ForeachAdamW's fused kernel and the NCCL communicator's
// asynchronous all-reduce qualify), zeroes gradients in place and runs autocast with
// cache_casts false. fp16 loss scaling reads a flag on the host every step, so it cannot
// be captured: use bf16 or fp32. It should keep no autograd graph alive between calls
// (outputs detached), so every call builds its gradient accumulators afresh on the step
// stream.
// The first `warmup_steps` calls run eagerly on `stream` (allocating gradients, optimizer
// state, cuDNN plans); the next call captures on the same stream and every later one
// replays on the caller's. One persistent side stream for warm-up, capture and the
// gradient bucketer's construction (run_on_stream) keeps autograd's accumulators and the
// allocator's pools on the stream that capture will see.
// Host scalars are baked into kernels at capture: whatever changes between steps (the
// learning rate, AdamW's step counts) must live in device memory the graph reads.
// Used by the training thread only.
#pragma once

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>

#include <functional>
#include <memory>

namespace scalestudy::gpu {

// Runs `body` with `stream` current, ordered after the caller's current stream, and orders
// the caller's stream after it again. Capture must not happen on the default stream.
void run_on_stream(c10::cuda::CUDAStream stream, const std::function<void()>& body);

class CudaGraphStep {
 public:
  CudaGraphStep(std::function<void()> step, int warmup_steps, c10::cuda::CUDAStream stream);

  // One training step: eager (warm-up), capture-and-replay, or replay.
  void run();
  bool captured() const { return graph_ != nullptr; }

 private:
  std::function<void()> step_;
  int warmup_left_;
  c10::cuda::CUDAStream stream_;
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
};

}  // namespace scalestudy::gpu
