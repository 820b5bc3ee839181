// Numeric precision of a training run and the process-wide math modes that go with it.
//   fp32  float32 everywhere; TF32 tensor-core math explicitly off (an honest fp32 baseline)
//   tf32  float32 tensors, TF32 allowed in cuBLAS matmuls and cuDNN convolutions
//   fp16  autocast to float16 in the forward pass, dynamic loss scaling (see LossScaler)
//   bf16  autocast to bfloat16 in the forward pass; no loss scaling needed
// Parameters and optimizer state stay float32 in every mode. apply_math_modes() sets
// LibTorch's global context (like torch.backends.* flags in Python): call it once at start
// up, before any thread trains. AutocastScope is per thread (autocast state is
// thread-local) and is meant to wrap the forward pass and the loss.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <string>
#include <string_view>

#include "harness/core/status.hpp"

namespace scalestudy::gpu {

enum class Precision { kFp32, kTf32, kFp16, kBf16 };

// "fp32" | "tf32" | "fp16" | "bf16"; the error names the flag and the accepted values.
Result<Precision> parse_precision(std::string_view text);
const char* precision_name(Precision precision);

// fp16 and tf32 need a CUDA device: CPU autocast in LibTorch 1.13 takes bfloat16 only, and
// TF32 is a tensor-core mode. The error names the flag and the precisions that do run.
Status check_precision_supported(Precision precision, c10::DeviceType device_type);

// The autocast dtype of the forward pass, or nullopt for fp32/tf32.
std::optional<at::ScalarType> autocast_dtype(Precision precision);
// Only fp16 needs loss scaling: its narrow exponent range underflows small gradients.
inline bool needs_loss_scaling(Precision precision) {
  return precision == Precision::kFp16;
}

// TF32 on/off for cuBLAS and cuDNN, and cuDNN's autotuner (benchmark mode: picks the
// fastest convolution algorithm per shape on first use; right for static shapes).
void apply_math_modes(Precision precision, bool cudnn_benchmark);

// Converts every 4-d parameter and buffer of `module` (convolution weights) to the
// channels_last memory format in place; feed inputs as channels_last too.
void convert_to_channels_last(torch::nn::Module& module);

// Enables autocast for `device_type` with the precision's dtype for the scope's lifetime,
// restoring the previous state after; a no-op for fp32/tf32. `cache_casts` false is needed
// while capturing a CUDA graph (cached casts must not outlive the capture). At the
// outermost exit the cast cache is cleared, as Python's torch.autocast does.
class AutocastScope {
 public:
  AutocastScope(Precision precision, c10::DeviceType device_type, bool cache_casts = true);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType device_type_;
  bool previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
  bool previous_cache_ = true;
};

}  // namespace scalestudy::gpu
