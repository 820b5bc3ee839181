#include "harness/gpu/precision.hpp"

#include "harness/compat/torch_compat.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::gpu {
namespace {

TEST_CASE("precision names round-trip and bad names are rejected") {
  for (Precision precision :
       {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16}) {
    auto parsed = parse_precision(precision_name(precision));
    REQUIRE(parsed.is_ok());
    CHECK(*parsed == precision);
  }
  auto bad = parse_precision("fp8");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() == "--precision: 'fp8' is not one of fp32, tf32, fp16, bf16");
}

TEST_CASE("only tf32 allows TF32 math") {
  apply_math_modes(Precision::kTf32, true);
  CHECK(at::globalContext().allowTF32CuBLAS());
  CHECK(at::globalContext().allowTF32CuDNN());
  CHECK(at::globalContext().benchmarkCuDNN());
  apply_math_modes(Precision::kBf16, false);
  CHECK_FALSE(at::globalContext().allowTF32CuBLAS());
  CHECK_FALSE(at::globalContext().allowTF32CuDNN());
  CHECK_FALSE(at::globalContext().benchmarkCuDNN());
}

TEST_CASE("bf16 autocast runs CPU matmuls in bfloat16 and restores the state") {
  torch::Tensor a = torch::randn({4, 4});
  {
    AutocastScope autocast(Precision::kBf16, c10::DeviceType::CPU);
    CHECK(compat::autocast_enabled(c10::DeviceType::CPU));
    CHECK((torch::mm(a, a).scalar_type() == torch::kBFloat16));
  }
  CHECK_FALSE(compat::autocast_enabled(c10::DeviceType::CPU));
  CHECK((torch::mm(a, a).scalar_type() == torch::kFloat));
  {
    AutocastScope autocast(Precision::kFp32, c10::DeviceType::CPU);
    CHECK((torch::mm(a, a).scalar_type() == torch::kFloat));
  }
}

TEST_CASE("channels_last converts convolution weights, not biases") {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 3));
  convert_to_channels_last(*conv);
  CHECK(conv->weight.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK_FALSE(conv->weight.is_contiguous());
  CHECK(conv->bias.dim() == 1);
  torch::Tensor input = torch::randn({2, 3, 8, 8}).contiguous(at::MemoryFormat::ChannelsLast);
  CHECK((conv->forward(input).sizes() == std::vector<int64_t>{2, 8, 6, 6}));
}

}  // namespace
}  // namespace scalestudy::gpu
