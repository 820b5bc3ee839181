#include "harness/gpu/cuda_graph_step.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

namespace scalestudy::gpu {
namespace {

// Runs `body` on a fresh side stream ordered after the current one, and orders the
// current stream after it again; graph capture must not happen on the default stream,
// and warm-up on the same side stream keeps the allocator's pools as capture will see them.
template <typename Body>
void on_side_stream(Body&& body) {
  c10::cuda::CUDAStream caller = at::cuda::getCurrentCUDAStream();
  c10::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent forked;
  forked.record(caller);
  forked.block(side);
  {
    c10::cuda::CUDAStreamGuard guard(side);
    body();
  }
  at::cuda::CUDAEvent joined;
  joined.record(side);
  joined.block(caller);
}

}  // namespace

CudaGraphStep::CudaGraphStep(std::function<void()> step, int warmup_steps)
    : step_(std::move(step)), warmup_left_(warmup_steps) {}

void CudaGraphStep::run() {
  if (warmup_left_ > 0) {
    --warmup_left_;
    on_side_stream(step_);
    return;
  }
  if (graph_ == nullptr) {
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    on_side_stream([&] {
      graph->capture_begin();
      step_();
      graph->capture_end();
    });
    graph_ = std::move(graph);
  }
  // Capture recorded the work without running it; every step, the first too, is a replay.
  graph_->replay();
}

}  // namespace scalestudy::gpu
