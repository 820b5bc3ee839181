// TrainingOptimizer: the optimizer as the training loop drives it — rate, zeroing, update —
// over two implementations (--optimizer-impl): `loop`, torch::optim's SGD or AdamW (a few
// kernels per parameter), and `foreach`, gpu::ForeachSgd / gpu::ForeachAdamW (one fused
// kernel, or a few multi-tensor ones, over all parameters; gradients zeroed in place;
// capture-safe, so --cuda-graph needs it; with the fused kernels of LibTorch ≥ 2.4 it also
// skips fp16 overflow steps on the device). `auto` picks foreach on a CUDA device or with
// --cuda-graph, loop otherwise.
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string_view>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/optim/optimizer_factory.hpp"

namespace scalestudy::train {

enum class OptimizerImpl { kAuto, kForeach, kLoop };
// "auto" | "foreach" | "loop".
Result<OptimizerImpl> parse_optimizer_impl(std::string_view text);
const char* optimizer_impl_name(OptimizerImpl impl);
OptimizerImpl resolve_optimizer_impl(OptimizerImpl requested, bool cuda_graph,
                                     const torch::Device& device);

class TrainingOptimizer {
 public:
  virtual ~TrainingOptimizer() = default;
  virtual void set_lr(double lr) = 0;
  // Before a backward whose gradients are not the bucketer's (one rank).
  virtual void zero_grad() = 0;
  virtual void step() = 0;
  // Whether step_unless() decides on the device (fused kernels): fp16 steps then need no
  // host synchronisation.
  virtual bool skips_on_device() const { return false; }
  // The step, skipped on the device when the one-element `found_inf` is non-zero; a defined
  // flag needs skips_on_device().
  virtual void step_unless(const torch::Tensor& found_inf) = 0;
  // The optimizer's state (momentum, Adam moments, step counts) in a training checkpoint;
  // load() copies into existing buffers where they exist (a captured CUDA graph reads them).
  virtual void save(torch::serialize::OutputArchive& archive) const = 0;
  virtual void load(torch::serialize::InputArchive& archive) = 0;
  // Bytes of that state on this rank (0 before the first step creates it).
  virtual int64_t state_bytes() const = 0;
};

// `impl` is resolved (foreach or loop).
Result<std::unique_ptr<TrainingOptimizer>> make_training_optimizer(
    const std::vector<torch::Tensor>& parameters, const optim::OptimizerConfig& config,
    OptimizerImpl impl);

}  // namespace scalestudy::train
