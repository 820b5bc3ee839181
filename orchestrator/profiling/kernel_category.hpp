// Kernel categories of the profile breakdown ("batch norm 18% of GPU time"): every GPU
// activity of a profile — kernel or memory copy — falls into exactly one, by its name.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scalestudy::profiling {

enum class KernelCategory {
  kConvolution,
  kGemm,
  kBatchNorm,
  kElementwise,
  kNccl,
  kMemcpy,
  kOther,
};

// The category of a kernel by its (demangled) name, first match wins, case-insensitive:
//   nccl                                       -> NCCL (NCCL's own GEMM-free kernels first)
//   batch_norm | batchnorm | bn_               -> batch norm
//   cudnn | conv | implicit_gemm | wgrad | dgrad -> convolution
//   gemm | cutlass | xmma | cublas             -> GEMM
//   elementwise | vectorized | reduce          -> elementwise
//   memcpy | memset                            -> memcpy (nsys copy rows: "[CUDA memcpy HtoD]")
//   anything else                              -> other
// Batch norm precedes convolution because cuDNN's batch-norm kernels carry "cudnn" too,
// and convolution precedes GEMM because implicit-GEMM convolutions carry "gemm".
KernelCategory classify_kernel(std::string_view kernel_name);

// "convolution", "GEMM", "batch norm", "elementwise", "NCCL", "memcpy", "other".
const char* category_name(KernelCategory category);

// Every category, in display order.
const std::vector<KernelCategory>& all_categories();

}  // namespace scalestudy::profiling
