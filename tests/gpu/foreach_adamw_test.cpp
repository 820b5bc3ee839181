#include "harness/gpu/foreach_adamw.hpp"

#include "harness/compat/torch_compat.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy::gpu {
namespace {

struct Twins {
  std::vector<torch::Tensor> ours, reference;
};

Twins make_twins() {
  torch::manual_seed(11);
  Twins twins;
  for (auto shape : {std::vector<int64_t>{4, 3}, {5}, {2, 2, 3, 3}}) {
    torch::Tensor initial = torch::randn(shape);
    twins.ours.push_back(initial.clone().requires_grad_());
    twins.reference.push_back(initial.clone().requires_grad_());
  }
  return twins;
}

// Both sides get the same gradient; `absent` leaves the parameter without one this step.
void give_gradients(Twins& twins, int step, size_t absent_at_step_1) {
  for (size_t i = 0; i < twins.ours.size(); ++i) {
    const bool absent = step == 1 && i == absent_at_step_1;
    torch::Tensor gradient = absent ? torch::Tensor() : torch::randn(twins.ours[i].sizes());
    twins.ours[i].mutable_grad() = absent ? torch::Tensor() : gradient.clone();
    twins.reference[i].mutable_grad() = absent ? torch::Tensor() : gradient.clone();
  }
}

TEST_CASE("foreach AdamW matches torch::optim::AdamW, also when a parameter misses a step") {
  const ForeachAdamWOptions options{3e-2, 0.8, 0.95, 1e-6, 0.1};
  Twins twins = make_twins();
  ForeachAdamW ours(twins.ours, options);
  torch::optim::AdamW reference(twins.reference, torch::optim::AdamWOptions(options.lr)
                                                     .betas({options.beta1, options.beta2})
                                                     .eps(options.eps)
                                                     .weight_decay(options.weight_decay));
  for (int step = 0; step < 6; ++step) {
    if (step == 3) {  // a schedule's new rate reaches both
      ours.set_lr(1e-2);
      static_cast<torch::optim::AdamWOptions&>(reference.param_groups()[0].options()).lr(1e-2);
    }
    give_gradients(twins, step, 1);
    ours.step();
    reference.step();
  }
  for (size_t i = 0; i < twins.ours.size(); ++i) {
    CAPTURE(i);
    CHECK(torch::allclose(twins.ours[i], twins.reference[i], 1e-5, 1e-6));
  }
}

TEST_CASE("a flagged overflow leaves AdamW's parameters and moments as they were") {
  if (!compat::kHasFusedOptimizers) {
    SKIP_NOT_APPLICABLE("device-side skipping needs LibTorch >= 2.4's fused kernels");
  }
  Twins twins = make_twins();
  ForeachAdamW skipped(twins.ours, ForeachAdamWOptions{});
  ForeachAdamW untouched(twins.reference, ForeachAdamWOptions{});
  give_gradients(twins, 0, 0);
  skipped.step_unless(torch::ones({1}));
  for (size_t i = 0; i < twins.ours.size(); ++i) {
    CHECK(torch::equal(twins.ours[i], twins.reference[i]));
  }
  // The skipped step did not count: the next one equals a first step.
  give_gradients(twins, 1, 99);
  skipped.step_unless(torch::zeros({1}));
  untouched.step();
  for (size_t i = 0; i < twins.ours.size(); ++i) {
    CHECK(torch::allclose(twins.ours[i], twins.reference[i], 1e-6, 1e-7));
  }
}

}  // namespace
}  // namespace scalestudy::gpu
