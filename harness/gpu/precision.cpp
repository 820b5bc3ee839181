#include "harness/gpu/precision.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::gpu {

Result<Precision> parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::kFp32;
  if (text == "tf32") return Precision::kTf32;
  if (text == "fp16") return Precision::kFp16;
  if (text == "bf16") return Precision::kBf16;
  return Status::error("--precision: '" + std::string(text) +
                       "' is not one of fp32, tf32, fp16, bf16");
}

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
  }
  return "fp32";
}

Status check_precision_supported(Precision precision, c10::DeviceType device_type) {
  if (device_type == c10::DeviceType::CUDA) return Status::ok();
  if (precision == Precision::kFp16) {
    return Status::error(
        "--precision fp16 needs a CUDA device: CPU autocast has no float16 (use bf16 or fp32)");
  }
  if (precision == Precision::kTf32) {
    return Status::error(
        "--precision tf32 needs a CUDA device: TF32 is a tensor-core mode (use fp32 on the CPU)");
  }
  return Status::ok();
}

std::optional<at::ScalarType> autocast_dtype(Precision precision) {
  switch (precision) {
    case Precision::kFp16:
      return at::kHalf;
    case Precision::kBf16:
      return at::kBFloat16;
    case Precision::kFp32:
    case Precision::kTf32:
      break;
  }
  return std::nullopt;
}

void apply_math_modes(Precision precision, bool cudnn_benchmark) {
  // Only tf32 opts in; the other modes keep fp32 leftovers (optimizer, reductions) exact.
  const bool allow_tf32 = precision == Precision::kTf32;
  at::globalContext().setAllowTF32CuBLAS(allow_tf32);
  at::globalContext().setAllowTF32CuDNN(allow_tf32);
  at::globalContext().setBenchmarkCuDNN(cudnn_benchmark);
}

void convert_to_channels_last(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor& parameter : module.parameters()) {
    if (parameter.dim() == 4)
      parameter.set_data(parameter.contiguous(at::MemoryFormat::ChannelsLast));
  }
  for (torch::Tensor& buffer : module.buffers()) {
    if (buffer.dim() == 4) buffer.set_data(buffer.contiguous(at::MemoryFormat::ChannelsLast));
  }
}

AutocastScope::AutocastScope(Precision precision, c10::DeviceType device_type, bool cache_casts)
    : device_type_(device_type) {
  const std::optional<at::ScalarType> dtype = autocast_dtype(precision);
  if (!dtype) return;
  active_ = true;
  previous_enabled_ = compat::autocast_enabled(device_type);
  previous_dtype_ = compat::autocast_dtype(device_type);
  previous_cache_ = at::autocast::is_autocast_cache_enabled();
  at::autocast::set_autocast_cache_enabled(cache_casts);
  compat::set_autocast(device_type, true, *dtype);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::set_autocast(device_type_, previous_enabled_, previous_dtype_);
  at::autocast::set_autocast_cache_enabled(previous_cache_);
}

}  // namespace scalestudy::gpu
