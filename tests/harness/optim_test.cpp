#include <cmath>

#include "harness/optim/lr_schedule.hpp"
#include "harness/optim/optimizer_factory.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace so = scalestudy::optim;

TEST_CASE("constant and step schedules, by hand") {
  so::LrSchedule schedule;
  schedule.base_lr = 0.1;
  CHECK(so::lr_at(schedule, 0, 10) == doctest::Approx(0.1));
  CHECK(so::lr_at(schedule, 999, 10) == doctest::Approx(0.1));
  schedule.decay = so::DecayKind::kStep;
  schedule.step_size_epochs = 2;
  schedule.gamma = 0.1;
  CHECK(so::lr_at(schedule, 19, 10) == doctest::Approx(0.1));    // epoch 1
  CHECK(so::lr_at(schedule, 20, 10) == doctest::Approx(0.01));   // epoch 2
  CHECK(so::lr_at(schedule, 45, 10) == doctest::Approx(0.001));  // epoch 4
}

TEST_CASE("multistep decays once per milestone reached, as torch MultiStepLR") {
  so::LrSchedule schedule;
  schedule.base_lr = 0.2;
  schedule.decay = so::DecayKind::kMultiStep;
  schedule.milestones_epochs = {3, 5};
  schedule.gamma = 0.5;
  CHECK(so::lr_at(schedule, 29, 10) == doctest::Approx(0.2));  // epoch 2
  CHECK(so::lr_at(schedule, 30, 10) == doctest::Approx(0.1));  // epoch 3
  CHECK(so::lr_at(schedule, 49, 10) == doctest::Approx(0.1));
  CHECK(so::lr_at(schedule, 50, 10) == doctest::Approx(0.05));
}

TEST_CASE("cosine decays from base to zero over total_epochs") {
  so::LrSchedule schedule;
  schedule.base_lr = 0.4;
  schedule.decay = so::DecayKind::kCosine;
  schedule.total_epochs = 10;
  CHECK(so::lr_at(schedule, 0, 10) == doctest::Approx(0.4));
  CHECK(so::lr_at(schedule, 25, 10) == doctest::Approx(0.4 * (1 + std::sqrt(0.5)) / 2));
  CHECK(so::lr_at(schedule, 50, 10) == doctest::Approx(0.2));
  CHECK(so::lr_at(schedule, 100, 10) == doctest::Approx(0.0));
}

TEST_CASE("linear warm-up scales any schedule from (step + 1) / W up to 1") {
  so::LrSchedule schedule;
  schedule.base_lr = 0.4;
  schedule.warmup_epochs = 1;
  CHECK(so::lr_at(schedule, 0, 10) == doctest::Approx(0.04));
  CHECK(so::lr_at(schedule, 4, 10) == doctest::Approx(0.2));
  CHECK(so::lr_at(schedule, 9, 10) == doctest::Approx(0.4));
  CHECK(so::lr_at(schedule, 10, 10) == doctest::Approx(0.4));
  schedule.warmup_epochs = 0.5;  // fractional: 5 steps
  CHECK(so::warmup_steps(schedule, 10) == 5);
  CHECK(so::lr_at(schedule, 1, 10) == doctest::Approx(0.16));
  schedule.warmup_steps = 4;  // takes precedence
  CHECK(so::lr_at(schedule, 1, 10) == doctest::Approx(0.2));

  SUBCASE("with cosine, the decay starts after the warm-up") {
    so::LrSchedule cosine;
    cosine.base_lr = 1.0;
    cosine.decay = so::DecayKind::kCosine;
    cosine.total_epochs = 10;
    cosine.warmup_epochs = 2;  // 20 of 100 steps
    CHECK(so::lr_at(cosine, 9, 10) == doctest::Approx(0.5));
    CHECK(so::lr_at(cosine, 20, 10) == doctest::Approx(1.0));
    CHECK(so::lr_at(cosine, 60, 10) == doctest::Approx(0.5));
    CHECK(so::lr_at(cosine, 100, 10) == doctest::Approx(0.0));
  }
  SUBCASE("with step decay, epochs count from the start") {
    so::LrSchedule step;
    step.base_lr = 1.0;
    step.decay = so::DecayKind::kStep;
    step.step_size_epochs = 1;
    step.gamma = 0.5;
    step.warmup_steps = 20;
    CHECK(so::lr_at(step, 14, 10) == doctest::Approx(0.5 * 15.0 / 20.0));
  }
}

TEST_CASE("schedule names and validation") {
  CHECK(*so::parse_decay_kind("cosine") == so::DecayKind::kCosine);
  auto unknown = so::parse_decay_kind("linear");
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message().find("constant, step, multistep, cosine") != std::string::npos);
  so::LrSchedule schedule;
  CHECK(so::validate_schedule(schedule).is_ok());
  schedule.decay = so::DecayKind::kCosine;
  CHECK_FALSE(so::validate_schedule(schedule).is_ok());  // no total_epochs
  schedule.total_epochs = 2;
  schedule.warmup_epochs = 2;
  CHECK_FALSE(so::validate_schedule(schedule).is_ok());
  schedule.decay = so::DecayKind::kMultiStep;
  schedule.milestones_epochs = {5, 3};
  CHECK_FALSE(so::validate_schedule(schedule).is_ok());
  schedule.decay = so::DecayKind::kStep;
  schedule.step_size_epochs = 0;
  CHECK_FALSE(so::validate_schedule(schedule).is_ok());
}

namespace {

// One parameter p with loss = 2 * p, so the gradient is always 2.
struct ScalarProblem {
  torch::Tensor parameter = torch::ones({1}, torch::requires_grad());
  void step(torch::optim::Optimizer& optimizer) {
    optimizer.zero_grad();
    (2 * parameter).sum().backward();
    optimizer.step();
  }
  double value() const { return parameter.item<double>(); }
};

}  // namespace

TEST_CASE("SGD with momentum and weight decay takes torch's steps") {
  ScalarProblem problem;
  so::OptimizerConfig config;
  config.lr = 0.1;
  config.momentum = 0.9;
  config.weight_decay = 0.01;
  auto optimizer = so::make_optimizer({problem.parameter}, config);
  REQUIRE(optimizer.is_ok());
  problem.step(**optimizer);
  const double p1 = 1 - 0.1 * (2 + 0.01 * 1);
  CHECK(problem.value() == doctest::Approx(p1));
  problem.step(**optimizer);
  const double buffer = 0.9 * (2 + 0.01) + (2 + 0.01 * p1);
  CHECK(problem.value() == doctest::Approx(p1 - 0.1 * buffer));
}

TEST_CASE("Nesterov SGD looks ahead along the momentum") {
  ScalarProblem problem;
  so::OptimizerConfig config;
  config.lr = 0.1;
  config.momentum = 0.5;
  config.nesterov = true;
  auto optimizer = so::make_optimizer({problem.parameter}, config);
  REQUIRE(optimizer.is_ok());
  problem.step(**optimizer);
  CHECK(problem.value() == doctest::Approx(1 - 0.1 * (2 + 0.5 * 2)));
  config.momentum = 0;
  CHECK_FALSE(so::make_optimizer({problem.parameter}, config).is_ok());
}

TEST_CASE("AdamW decays weights decoupled from the adaptive step") {
  ScalarProblem problem;
  so::OptimizerConfig config;
  config.kind = so::OptimizerKind::kAdamW;
  config.lr = 0.01;
  config.weight_decay = 0.1;
  auto optimizer = so::make_optimizer({problem.parameter}, config);
  REQUIRE(optimizer.is_ok());
  problem.step(**optimizer);
  // First step: bias-corrected m / sqrt(v) = g / |g| = 1 (up to eps).
  CHECK(problem.value() == doctest::Approx(1 * (1 - 0.01 * 0.1) - 0.01).epsilon(1e-6));
}

TEST_CASE("set_learning_rate sets every parameter group and changes the step") {
  ScalarProblem problem;
  torch::Tensor other = torch::ones({1}, torch::requires_grad());
  so::OptimizerConfig config;
  config.lr = 0.1;
  config.momentum = 0;
  auto optimizer = so::make_optimizer({problem.parameter}, config);
  REQUIRE(optimizer.is_ok());
  (*optimizer)->add_param_group(torch::optim::OptimizerParamGroup({other}));
  so::set_learning_rate(**optimizer, 0.25);
  CHECK(so::learning_rate(**optimizer) == doctest::Approx(0.25));
  CHECK((*optimizer)->param_groups()[1].options().get_lr() == doctest::Approx(0.25));
  problem.step(**optimizer);
  CHECK(problem.value() == doctest::Approx(1 - 0.25 * 2));
  CHECK(*so::parse_optimizer_kind("adamw") == so::OptimizerKind::kAdamW);
  CHECK_FALSE(so::parse_optimizer_kind("lamb").is_ok());
}
