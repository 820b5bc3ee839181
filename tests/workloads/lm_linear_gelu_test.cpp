// The MLP's GELU in the GEMM epilogue (workloads/lm/linear_gelu.hpp) against the plain
// formula gelu(linear(x, weight, bias)) on the CPU, with the GELU the operator applies there
// (the exact one): the output and the gradients of x, weight and bias, from a 3-D input.
// Tolerance, on the largest difference over the largest magnitude of the plain value: 1e-5
// in float32 and under bf16 CPU autocast alike (measured: 0, the same kernels on Debian's
// LibTorch 1.13; the backward recomputes the pre-activation with the product the forward
// made).
// The GPT's MLP with the flag is the plain (tanh) MLP's within GELU's two forms' gap.
#include "harness/gpu/precision.hpp"
#include "tests/harness/relative_error.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "workloads/lm/gpt.hpp"
#include "workloads/lm/linear_gelu.hpp"

namespace scalestudy {
namespace {

using testing::relative_error;

struct Grads {
  torch::Tensor output, x, weight, bias;
};

template <typename Layer>
Grads run_layer(bool bf16, Layer layer) {
  torch::manual_seed(5);
  torch::Tensor x = torch::randn({2, 5, 8}).requires_grad_(true);
  torch::Tensor weight = (torch::randn({32, 8}) * 0.3).requires_grad_(true);
  torch::Tensor bias = (torch::randn({32}) * 0.1).requires_grad_(true);
  torch::Tensor output;
  {
    std::optional<gpu::AutocastScope> autocast;
    if (bf16) autocast.emplace(gpu::Precision::kBf16, c10::DeviceType::CPU);
    output = layer(x, weight, bias);
  }
  (output.to(torch::kFloat) * torch::linspace(-1, 1, output.numel()).view(output.sizes()))
      .sum()
      .backward();
  return {output.detach(), x.grad(), weight.grad(), bias.grad()};
}

Grads plain(bool bf16) {
  return run_layer(bf16,
                   [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
                     return torch::gelu(torch::linear(x, w, b),
                                        lm::epilogue_gelu_approximation(c10::DeviceType::CPU));
                   });
}

Grads epilogue(bool bf16) {
  return run_layer(bf16, [](const torch::Tensor& x, const torch::Tensor& w,
                            const torch::Tensor& b) { return lm::linear_gelu(x, w, b); });
}

void check_close(const Grads& got, const Grads& want, double tolerance) {
  CHECK((got.output.scalar_type() == want.output.scalar_type()));
  CHECK(got.output.sizes() == want.output.sizes());
  for (const auto& [name, value, reference] :
       {std::tuple<std::string, torch::Tensor, torch::Tensor>{"output", got.output, want.output},
        {"d(x)", got.x, want.x},
        {"d(weight)", got.weight, want.weight},
        {"d(bias)", got.bias, want.bias}}) {
    CAPTURE(name);
    CHECK((value.scalar_type() == reference.scalar_type()));
    const double error = relative_error(value, reference);
    MESSAGE(name << ": relative error " << error);
    CHECK(error <= tolerance);
  }
}

}  // namespace

TEST_CASE("the CPU's GELU epilogue is the exact GELU, on this LibTorch") {
  CHECK(std::string(lm::epilogue_gelu_approximation(c10::DeviceType::CPU)) == "none");
  CHECK(std::string(lm::epilogue_gelu_approximation(c10::DeviceType::CUDA)) == "tanh");
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({16, 8}), w = torch::randn({24, 8}), b = torch::randn({24});
  const torch::Tensor pre = torch::linear(x, w, b);
  torch::NoGradGuard no_grad;
  const torch::Tensor fused = lm::linear_gelu(x, w, b);
  CHECK(relative_error(fused, torch::gelu(pre, "none")) <= 1e-6);
  CHECK(relative_error(fused, torch::gelu(pre, "tanh")) > 1e-5);  // the forms do differ
}

TEST_CASE("the GELU epilogue's output and gradients equal the plain formula's in float32 (1e-5)") {
  check_close(epilogue(/*bf16=*/false), plain(/*bf16=*/false), 1e-5);
}

TEST_CASE("the GELU epilogue under bf16 CPU autocast is the plain formula's within 1e-5") {
  check_close(epilogue(/*bf16=*/true), plain(/*bf16=*/true), 1e-5);
}

TEST_CASE("the GPT's MLP with the epilogue is the plain MLP's within GELU's two forms' gap") {
  torch::manual_seed(2);
  lm::Mlp plain_mlp(16, /*gelu_epilogue=*/false), epilogue_mlp(16, /*gelu_epilogue=*/true);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < plain_mlp->parameters().size(); ++i) {
      epilogue_mlp->parameters()[i].copy_(plain_mlp->parameters()[i]);
    }
  }
  const torch::Tensor x = torch::randn({3, 4, 16});
  const double error = relative_error(epilogue_mlp(x), plain_mlp(x));
  MESSAGE("MLP output, exact GELU against tanh: relative error " << error);
  CHECK(error <= 1e-3);
}

}  // namespace scalestudy
