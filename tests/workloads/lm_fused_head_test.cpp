// The fused, chunked head + cross-entropy (workloads/lm/fused_head_loss.hpp) against the
// plain path of LmTask::forward — logits = linear(hidden, weight), float32 log-softmax,
// nll_loss — on the CPU: the loss and the gradients of the hidden states and the weight,
// at chunk sizes of one row, one that does not divide the rows, all rows and more, with
// ignored targets and a grad_output other than 1 (the loss times 3).
// Tolerances, on the largest difference over the largest magnitude of the plain path's
// value: float32 1e-5 (the same arithmetic, summed in another order; measured up to 6e-7);
// bf16 under CPU autocast 2e-2 (measured up to 0.8e-2): the plain path rounds
// (softmax − one-hot) · 3/N to bf16 and its d(weight) too, the fused one rounds
// softmax − one-hot, scales after the products and sums d(weight) in float32.
#include "harness/gpu/precision.hpp"
#include "tests/harness/relative_error.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "workloads/lm/fused_head_loss.hpp"
#include "workloads/lm/lm_config.hpp"

namespace scalestudy {
namespace {

using testing::relative_error;

constexpr int64_t kRows = 37, kWidth = 16, kVocab = 50;

struct HeadResult {
  torch::Tensor loss, grad_hidden, grad_weight;
};

struct HeadInputs {
  torch::Tensor hidden, weight, targets;
};

HeadInputs inputs() {
  torch::manual_seed(3);
  HeadInputs in{torch::randn({kRows, kWidth}), torch::randn({kVocab, kWidth}) * 0.5,
                torch::randint(kVocab, {kRows}, torch::kLong)};
  in.targets[4] = lm::kIgnoreIndex;
  in.targets[30] = lm::kIgnoreIndex;
  return in;
}

// Runs `loss_of` on fresh leaves, under bf16 CPU autocast if asked, and backpropagates 3·loss.
template <typename LossOf>
HeadResult run_head(const HeadInputs& in, bool bf16, LossOf loss_of) {
  torch::Tensor hidden = in.hidden.clone().requires_grad_(true);
  torch::Tensor weight = in.weight.clone().requires_grad_(true);
  torch::Tensor loss;
  {
    std::optional<gpu::AutocastScope> autocast;
    if (bf16) autocast.emplace(gpu::Precision::kBf16, c10::DeviceType::CPU);
    loss = loss_of(hidden, weight, in.targets);
  }
  (loss * 3).backward();
  return {loss.detach(), hidden.grad(), weight.grad()};
}

HeadResult plain(const HeadInputs& in, bool bf16) {
  return run_head(
      in, bf16, [](const torch::Tensor& h, const torch::Tensor& w, const torch::Tensor& t) {
        torch::Tensor log_probs = torch::log_softmax(torch::linear(h, w), -1, torch::kFloat);
        return torch::nn::functional::nll_loss(log_probs, t);
      });
}

HeadResult fused(const HeadInputs& in, bool bf16, int64_t chunk_rows) {
  return run_head(
      in, bf16, [&](const torch::Tensor& h, const torch::Tensor& w, const torch::Tensor& t) {
        return lm::fused_head_cross_entropy(h, w, t, chunk_rows, lm::head_compute_dtype(h));
      });
}

void check_close(const HeadResult& got, const HeadResult& want, double tolerance) {
  CHECK((got.loss.scalar_type() == torch::kFloat));
  CHECK((got.grad_hidden.scalar_type() == want.grad_hidden.scalar_type()));
  CHECK((got.grad_weight.scalar_type() == want.grad_weight.scalar_type()));
  const double loss = relative_error(got.loss, want.loss);
  const double hidden = relative_error(got.grad_hidden, want.grad_hidden);
  const double weight = relative_error(got.grad_weight, want.grad_weight);
  MESSAGE("relative error: loss " << loss << ", d(hidden) " << hidden << ", d(weight) " << weight);
  CHECK(loss <= tolerance);
  CHECK(hidden <= tolerance);
  CHECK(weight <= tolerance);
}

}  // namespace

TEST_CASE("the fused head's loss and gradients equal the plain path's in float32 (1e-5)") {
  const HeadInputs in = inputs();
  const HeadResult want = plain(in, /*bf16=*/false);
  for (int64_t chunk_rows : {int64_t{1}, int64_t{8}, kRows, int64_t{64}}) {
    CAPTURE(chunk_rows);
    check_close(fused(in, /*bf16=*/false, chunk_rows), want, 1e-5);
  }
}

TEST_CASE("the fused head under bf16 CPU autocast is the plain path's within 2e-2") {
  const HeadInputs in = inputs();
  const HeadResult want = plain(in, /*bf16=*/true);
  for (int64_t chunk_rows : {int64_t{8}, kRows}) {
    CAPTURE(chunk_rows);
    check_close(fused(in, /*bf16=*/true, chunk_rows), want, 2e-2);
  }
}

TEST_CASE("without gradients the fused head computes the loss alone") {
  const HeadInputs in = inputs();
  const HeadResult want = plain(in, /*bf16=*/false);
  torch::NoGradGuard no_grad;
  torch::Tensor loss =
      lm::fused_head_cross_entropy(in.hidden, in.weight, in.targets, 8, torch::kFloat);
  CHECK_FALSE(loss.requires_grad());
  CHECK(relative_error(loss, want.loss) <= 1e-5);
}

TEST_CASE("--fused-head (chunks of 2,048 rows) and --gelu-epilogue are off by default") {
  train::Flags flags;
  lm::declare_lm_flags(flags);
  REQUIRE(flags.parse({}));
  lm::derive_lm_defaults(flags);
  auto plain_config = lm::resolve_lm_config(flags);
  REQUIRE(plain_config);
  CHECK_FALSE(plain_config->fused_head);
  CHECK(plain_config->head_chunk_rows == 2048);
  CHECK_FALSE(plain_config->model.gelu_epilogue);
  train::Flags set;
  lm::declare_lm_flags(set);
  REQUIRE(
      set.parse({"--fused-head", "true", "--head-chunk-rows", "100", "--gelu-epilogue", "true"}));
  auto fused_config = lm::resolve_lm_config(set);
  REQUIRE(fused_config);
  CHECK(fused_config->fused_head);
  CHECK(fused_config->head_chunk_rows == 100);
  CHECK(fused_config->model.gelu_epilogue);
}

}  // namespace scalestudy
