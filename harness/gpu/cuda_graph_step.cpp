#include "harness/gpu/cuda_graph_step.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <stdexcept>
#include <string>

#include "harness/core/first_line.hpp"

namespace scalestudy::gpu {

void run_on_stream(c10::cuda::CUDAStream stream, const std::function<void()>& body) {
  c10::cuda::CUDAStream caller = at::cuda::getCurrentCUDAStream(stream.device_index());
  at::cuda::CUDAEvent forked;
  forked.record(caller);
  forked.block(stream);
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    body();
  }
  at::cuda::CUDAEvent joined;
  joined.record(stream);
  joined.block(caller);
}

CudaGraphStep::CudaGraphStep(std::function<void()> step, int warmup_steps,
                             c10::cuda::CUDAStream stream)
    : step_(std::move(step)), warmup_left_(warmup_steps), stream_(stream) {}

void CudaGraphStep::run() {
  if (warmup_left_ > 0) {
    --warmup_left_;
    run_on_stream(stream_, step_);
    return;
  }
  if (graph_ == nullptr) {
    // As torch.cuda.graph does: the warm-up's cached blocks go back to the driver, so the
    // graph's private pool can have their memory.
    c10::cuda::device_synchronize();
    c10::cuda::CUDACachingAllocator::emptyCache();
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    run_on_stream(stream_, [&] {
      graph->capture_begin();
      try {
        step_();
      } catch (const std::exception& error) {
        // An open capture keeps the stream capturing and its allocations in the graph's
        // pool; end it (the invalidated capture fails too) before reporting the cause.
        try {
          graph->capture_end();
        } catch (const std::exception&) {
        }
        throw std::runtime_error(
            "capturing the training step as a CUDA graph (--cuda-graph): " +
            first_line(error.what()) +
            " (a captured step must not wait on the host: no .item(), no host tensors)");
      }
      graph->capture_end();
    });
    graph_ = std::move(graph);
  }
  // Capture recorded the work without running it; every step, the first too, is a replay.
  graph_->replay();
}

}  // namespace scalestudy::gpu
