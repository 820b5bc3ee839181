// gelu(x · weightᵀ + bias) with the GELU in the GEMM's epilogue (`--gelu-epilogue`,
// docs/lm.md): ATen's _addmm_activation, which on CUDA runs cuBLASLt's GELU epilogue (GELU's
// tanh approximation, the model's) where the build has it and a tanh GELU after the GEMM
// where not. On the CPU the same operator applies the exact GELU (measured: LibTorch 1.13
// and 2.11), so a CPU run with the flag trains an MLP whose activation differs from GPT-2's
// by up to 5e-4. Both LibTorch releases have the operator and neither differentiates it:
// this autograd function's backward recomputes the pre-activation (one more GEMM: the
// epilogue does not hand it out) for GELU's derivative. Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

namespace scalestudy::lm {

// x [.., in], weight [out, in], bias [out] -> [.., out], in autocast's dtype where it is on
// (as torch::linear), else x's.
torch::Tensor linear_gelu(const torch::Tensor& x, const torch::Tensor& weight,
                          const torch::Tensor& bias);

// The GELU that _addmm_activation applies on a device type: "tanh" on CUDA, "none" (exact)
// elsewhere.
const char* epilogue_gelu_approximation(c10::DeviceType device_type);

}  // namespace scalestudy::lm
