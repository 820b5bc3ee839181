#include "harness/gpu/foreach_sgd.hpp"

#include "harness/compat/torch_compat.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy::gpu {
namespace {

// Runs ForeachSgd and torch::optim::SGD side by side on identical parameters fed identical
// gradients; some steps leave a parameter without gradient.
void check_matches_torch_sgd(const ForeachSgdOptions& options) {
  torch::manual_seed(7);
  std::vector<torch::Tensor> ours, reference;
  for (auto shape : {std::vector<int64_t>{4, 3}, {5}, {2, 2, 3, 3}}) {
    torch::Tensor initial = torch::randn(shape);
    ours.push_back(initial.clone().requires_grad_());
    reference.push_back(initial.clone().requires_grad_());
  }
  ForeachSgd foreach_sgd(ours, options);
  torch::optim::SGD torch_sgd(reference, torch::optim::SGDOptions(options.lr)
                                             .momentum(options.momentum)
                                             .dampening(options.dampening)
                                             .weight_decay(options.weight_decay)
                                             .nesterov(options.nesterov));
  for (int step = 0; step < 5; ++step) {
    for (size_t i = 0; i < ours.size(); ++i) {
      const bool skip = step == 1 && i == 1;
      torch::Tensor gradient = skip ? torch::Tensor() : torch::randn(ours[i].sizes());
      ours[i].mutable_grad() = skip ? torch::Tensor() : gradient.clone();
      reference[i].mutable_grad() = skip ? torch::Tensor() : gradient.clone();
    }
    foreach_sgd.step();
    torch_sgd.step();
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    CHECK(torch::allclose(ours[i], reference[i], 1e-5, 1e-6));
  }
}

TEST_CASE("foreach SGD matches torch::optim::SGD") {
  SUBCASE("plain") {
    check_matches_torch_sgd({0.1, 0.0, 0.0, 0.0, false});
  }
  SUBCASE("momentum and weight decay") {
    check_matches_torch_sgd({0.05, 0.9, 0.0, 5e-4, false});
  }
  SUBCASE("nesterov") {
    check_matches_torch_sgd({0.05, 0.9, 0.0, 5e-4, true});
  }
  SUBCASE("dampening") {
    check_matches_torch_sgd({0.05, 0.9, 0.3, 0.0, false});
  }
}

TEST_CASE("a flagged overflow leaves SGD's parameters and momentum as they were") {
  if (!compat::kHasFusedOptimizers) {
    SKIP_NOT_APPLICABLE("device-side skipping needs LibTorch >= 2.4's fused kernels");
  }
  torch::Tensor parameter = torch::ones({3}, torch::requires_grad());
  ForeachSgd sgd({parameter}, ForeachSgdOptions{0.1, 0.9, 0.0, 0.0, false});
  parameter.mutable_grad() = torch::ones({3});
  sgd.step_unless(torch::ones({1}));
  CHECK(torch::equal(parameter, torch::ones({3})));
  sgd.step_unless(torch::zeros({1}));
  CHECK(torch::allclose(parameter, torch::full({3}, 0.9)));
  sgd.step_unless(torch::zeros({1}));  // momentum 0.9 * 1 + 1
  CHECK(torch::allclose(parameter, torch::full({3}, 0.9 - 0.19)));
}

TEST_CASE("zero_grad zeroes gradients in place") {
  torch::Tensor parameter = torch::ones({3}, torch::requires_grad());
  parameter.mutable_grad() = torch::full({3}, 2.0f);
  const void* storage = parameter.grad().data_ptr();
  ForeachSgd sgd({parameter}, ForeachSgdOptions{});
  sgd.zero_grad();
  CHECK(parameter.grad().data_ptr() == storage);
  CHECK(parameter.grad().abs().sum().item<float>() == 0.0f);
}

}  // namespace

TEST_CASE("a new learning rate is written in place, so a captured graph never needs recapture") {
  torch::Tensor parameter = torch::zeros({2}, torch::requires_grad());
  ForeachSgd sgd({parameter}, ForeachSgdOptions{0.1});
  // What a captured graph reads: the rate tensor's storage, fixed for the optimizer's life.
  const void* rate_storage = sgd.lr_tensor().data_ptr();
  parameter.mutable_grad() = torch::ones({2});
  sgd.step();
  CHECK(torch::allclose(parameter, torch::full({2}, -0.1)));
  sgd.set_lr(0.5);
  CHECK(sgd.lr() == 0.5);
  CHECK(sgd.lr_tensor().data_ptr() == rate_storage);
  CHECK(sgd.lr_tensor().item<float>() == 0.5f);
  sgd.step();
  CHECK(torch::allclose(parameter, torch::full({2}, -0.6)));
}

}  // namespace scalestudy::gpu
