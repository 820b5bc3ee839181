#include "orchestrator/profiling/kernel_category.hpp"

#include "harness/core/ascii_case.hpp"

namespace scalestudy::profiling {

KernelCategory classify_kernel(std::string_view kernel_name) {
  const std::string name = ascii_lowercase(std::string(kernel_name));
  struct Rule {
    KernelCategory category;
    std::vector<const char*> patterns;
  };
  static const std::vector<Rule> kRules = {
      {KernelCategory::kNccl, {"nccl"}},
      {KernelCategory::kBatchNorm, {"batch_norm", "batchnorm", "bn_"}},
      {KernelCategory::kConvolution, {"cudnn", "conv", "implicit_gemm", "wgrad", "dgrad"}},
      {KernelCategory::kGemm, {"gemm", "cutlass", "xmma", "cublas"}},
      {KernelCategory::kElementwise, {"elementwise", "vectorized", "reduce"}},
      {KernelCategory::kMemcpy, {"memcpy", "memset"}},
  };
  for (const Rule& rule : kRules) {
    for (const char* pattern : rule.patterns) {
      if (name.find(pattern) != std::string::npos) return rule.category;
    }
  }
  return KernelCategory::kOther;
}

const char* category_name(KernelCategory category) {
  switch (category) {
    case KernelCategory::kConvolution:
      return "convolution";
    case KernelCategory::kGemm:
      return "GEMM";
    case KernelCategory::kBatchNorm:
      return "batch norm";
    case KernelCategory::kElementwise:
      return "elementwise";
    case KernelCategory::kNccl:
      return "NCCL";
    case KernelCategory::kMemcpy:
      return "memcpy";
    case KernelCategory::kOther:
      return "other";
  }
  return "other";
}

const std::vector<KernelCategory>& all_categories() {
  static const std::vector<KernelCategory> kAll = {
      KernelCategory::kConvolution, KernelCategory::kGemm, KernelCategory::kBatchNorm,
      KernelCategory::kElementwise, KernelCategory::kNccl, KernelCategory::kMemcpy,
      KernelCategory::kOther};
  return kAll;
}

}  // namespace scalestudy::profiling
