// Forward cost of a model per sample, for model FLOPs utilisation (MFU): runs one forward
// pass on a zero input and counts the multiply-accumulates of every convolution, linear
// layer, matrix product and fused attention (scaled_dot_product_attention: QK^T and the
// weighted sum of V, the causal mask's skipped half included, as the 12·L·d·T term of the
// usual LM rule counts it) as the dispatcher executes them (an at::RecordFunction
// observer: the C++ frontend has no module hooks), at 2 FLOPs per MAC. Element-wise ops,
// norms and pooling are not counted, as in the usual MFU convention.
// Thread-safety: counts only ops on the calling thread; do not share the module with a
// concurrent forward pass.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::models {

struct ForwardCost {
  int64_t conv_macs = 0;
  int64_t linear_macs = 0;  // linear layers, matrix products (mm, addmm, matmul, bmm), attention
  int64_t macs() const { return conv_macs + linear_macs; }
  double flops() const { return 2.0 * static_cast<double>(macs()); }
};

// `sample_shape`: {C, H, W}. Runs in eval mode without grad on the module's device and
// restores the training mode afterwards; batch norm statistics are untouched.
Result<ForwardCost> forward_cost_per_sample(torch::nn::AnyModule& module,
                                            const std::vector<int64_t>& sample_shape);

// The same count for one forward pass on `input` (a batch of one, on the module's device):
// for models whose input is not a float image (token ids).
Result<ForwardCost> forward_cost_of(torch::nn::AnyModule& module, const torch::Tensor& input);

}  // namespace scalestudy::models
