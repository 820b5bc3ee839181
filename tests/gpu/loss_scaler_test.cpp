#include "harness/gpu/loss_scaler.hpp"

#include <limits>

#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::gpu {
namespace {

TEST_CASE("a non-finite gradient skips the step and halves the scale") {
  LossScaler scaler;
  CHECK(scaler.scale_value() == 65536.0);
  for (float bad :
       {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    const double before = scaler.scale_value();
    torch::Tensor clean = torch::full({3}, 4.0f);
    torch::Tensor poisoned = torch::tensor({1.0f, bad});
    int steps_taken = 0;
    CHECK_FALSE(scaler.step({clean, poisoned}, [&] { ++steps_taken; }));
    CHECK(steps_taken == 0);
    CHECK(scaler.scale_value() == before * 0.5);
    CHECK(scaler.growth_tracker() == 0);
  }
  CHECK(scaler.skipped_steps() == 2);
}

TEST_CASE("clean steps unscale the gradients and run the optimizer") {
  LossScaler scaler(LossScalerOptions{1024.0, 2.0, 0.5, 2000});
  torch::Tensor gradient = torch::tensor({1024.0f, -2048.0f});
  torch::Tensor absent;  // a parameter without gradient this step
  int steps_taken = 0;
  CHECK(scaler.step({gradient, absent}, [&] { ++steps_taken; }));
  CHECK(steps_taken == 1);
  CHECK(torch::equal(gradient, torch::tensor({1.0f, -2.0f})));
  CHECK(scaler.growth_tracker() == 1);
  CHECK(scaler.scale_value() == 1024.0);
}

TEST_CASE("growth_interval clean steps in a row double the scale") {
  LossScaler scaler;
  torch::Tensor gradient = torch::ones({4});
  for (int step = 0; step < 1999; ++step) scaler.step({gradient}, [] {});
  CHECK(scaler.scale_value() == 65536.0);
  CHECK(scaler.growth_tracker() == 1999);
  scaler.step({gradient}, [] {});
  CHECK(scaler.scale_value() == 131072.0);
  CHECK(scaler.growth_tracker() == 0);
}

TEST_CASE("an overflow resets the run of clean steps") {
  LossScaler scaler(LossScalerOptions{8.0, 2.0, 0.5, 3});
  torch::Tensor gradient = torch::ones({2});
  scaler.step({gradient}, [] {});
  scaler.step({gradient}, [] {});
  torch::Tensor overflow = torch::tensor({std::numeric_limits<float>::infinity()});
  scaler.step({overflow}, [] {});
  CHECK(scaler.scale_value() == 4.0);
  scaler.step({gradient}, [] {});
  scaler.step({gradient}, [] {});
  CHECK(scaler.scale_value() == 4.0);
  scaler.step({gradient}, [] {});
  CHECK(scaler.scale_value() == 8.0);
}

TEST_CASE("unscale and update keep the decision on the device") {
  LossScaler scaler(LossScalerOptions{4.0, 2.0, 0.5, 2});
  torch::Tensor gradient = torch::full({2}, 8.0f);
  torch::Tensor found_inf = scaler.unscale({gradient});
  CHECK(found_inf.device() == gradient.device());
  CHECK(found_inf.item<float>() == 0.0f);
  CHECK(torch::equal(gradient, torch::full({2}, 2.0f)));
  scaler.update(found_inf);
  CHECK(scaler.growth_tracker() == 1);
  scaler.update(scaler.unscale({gradient}));
  CHECK(scaler.scale_value() == 8.0);  // two clean steps: grown
  torch::Tensor overflow = torch::tensor({std::numeric_limits<float>::infinity()});
  found_inf = scaler.unscale({overflow});
  CHECK(found_inf.item<float>() == 1.0f);
  scaler.update(found_inf);
  CHECK(scaler.scale_value() == 4.0);
  CHECK(scaler.growth_tracker() == 0);
  CHECK(scaler.skipped_steps() == 1);
}

TEST_CASE("scale multiplies the loss and keeps it differentiable") {
  LossScaler scaler(LossScalerOptions{16.0, 2.0, 0.5, 2000});
  torch::Tensor weight = torch::full({1}, 3.0f, torch::requires_grad());
  torch::Tensor loss = (weight * 2.0f).sum();
  scaler.scale(loss).backward();
  CHECK(weight.grad().item<float>() == 32.0f);
}

}  // namespace
}  // namespace scalestudy::gpu
