// The DDPM noise schedules and the two directions of the process: betas at the published
// end points, x_T pure noise at any T, add_noise drawing from q(x_t | x_0) (checked by
// sample statistics), and reverse_step's posterior mean agreeing with Ho et al.'s
// equation 11 written independently.
#include <cmath>

#include "tests/harness/torch_doctest.hpp"
#include "workloads/ddpm/noise_schedule.hpp"

namespace scalestudy::ddpm {

TEST_CASE("linear schedule: Ho et al.'s 1e-4 .. 0.02 at T = 1000, scaled for shorter T") {
  NoiseSchedule schedule(BetaSchedule::kLinear, 1000);
  CHECK(schedule.timesteps() == 1000);
  CHECK(schedule.beta(0) == doctest::Approx(1e-4));
  CHECK(schedule.beta(999) == doctest::Approx(0.02));
  CHECK(schedule.beta(500) > schedule.beta(499));
  // alpha_bar_T = prod(1 - beta_t) ~ exp(-sum beta) = exp(-10.05): x_T is noise.
  CHECK(schedule.alpha_bar(999) < 1e-4);
  CHECK(schedule.alpha_bar(0) == doctest::Approx(1 - 1e-4));

  NoiseSchedule short_schedule(BetaSchedule::kLinear, 50);
  CHECK(short_schedule.beta(0) == doctest::Approx(20 * 1e-4));
  CHECK(short_schedule.beta(49) == doctest::Approx(20 * 0.02));
  CHECK(short_schedule.alpha_bar(49) < 1e-4);
}

TEST_CASE("cosine schedule follows cos^2 of Nichol & Dhariwal and caps betas at 0.999") {
  const int64_t steps = 1000;
  NoiseSchedule schedule(BetaSchedule::kCosine, steps);
  auto f = [&](double t) {
    double angle = (t / steps + 0.008) / 1.008 * M_PI / 2;
    return std::cos(angle) * std::cos(angle);
  };
  for (int64_t t : {0, 100, 500, 900}) {
    CAPTURE(t);
    CHECK(schedule.alpha_bar(t) == doctest::Approx(f(t + 1) / f(0)).epsilon(1e-9));
  }
  for (int64_t t = 0; t < steps; ++t) CHECK(schedule.beta(t) <= 0.999);
  CHECK(schedule.beta(steps - 1) == doctest::Approx(0.999));
  CHECK(schedule.alpha_bar(steps - 1) < 1e-6);
}

TEST_CASE("add_noise draws x_t from q(x_t | x_0): mean sqrt(ab) x_0, variance 1 - ab") {
  NoiseSchedule schedule(BetaSchedule::kLinear, 1000);
  torch::manual_seed(11);
  const int64_t samples = 200000;
  torch::Tensor clean = torch::full({samples, 1, 1, 1}, 0.8);
  torch::Tensor noise = torch::randn({samples, 1, 1, 1});
  for (int64_t t : {10, 300, 700}) {
    CAPTURE(t);
    torch::Tensor steps = torch::full({samples}, t, torch::kLong);
    torch::Tensor noisy = schedule.add_noise(clean, noise, steps);
    double alpha_bar = schedule.alpha_bar(t);
    // Standard errors: 0.0022 for the mean, 0.3% of the variance.
    CHECK(std::abs(noisy.mean().item<double>() - std::sqrt(alpha_bar) * 0.8) < 0.01);
    CHECK(noisy.var().item<double>() == doctest::Approx(1 - alpha_bar).epsilon(0.02).scale(0));
  }
  // Each sample uses its own step: sample 0 at t = 0 is nearly clean, sample 1 at 999 noise.
  torch::Tensor pair = schedule.add_noise(torch::ones({2, 1, 2, 2}), torch::zeros({2, 1, 2, 2}),
                                          torch::tensor({0, 999}, torch::kLong));
  CHECK(pair[0].mean().item<double>() == doctest::Approx(std::sqrt(schedule.alpha_bar(0))));
  CHECK(pair[1].mean().item<double>() == doctest::Approx(std::sqrt(schedule.alpha_bar(999))));
}

TEST_CASE("reverse_step with the true noise is Ho et al.'s posterior mean (eq. 11)") {
  NoiseSchedule schedule(BetaSchedule::kLinear, 1000);
  torch::manual_seed(5);
  // Clean images well inside [-1, 1], so clipping the implied x_0 changes nothing.
  torch::Tensor clean = torch::rand({3, 1, 8, 8}, torch::kDouble) * 1.6 - 0.8;
  torch::Tensor noise = torch::randn({3, 1, 8, 8}, torch::kDouble);
  for (int64_t t : {1, 40, 400, 999}) {
    CAPTURE(t);
    torch::Tensor noisy =
        std::sqrt(schedule.alpha_bar(t)) * clean + std::sqrt(1 - schedule.alpha_bar(t)) * noise;
    torch::Tensor zero = torch::zeros_like(noisy);
    torch::Tensor mean = schedule.reverse_step(noisy, noise, t, zero);
    double alpha = 1 - schedule.beta(t);
    torch::Tensor equation_11 =
        (noisy - schedule.beta(t) / std::sqrt(1 - schedule.alpha_bar(t)) * noise) /
        std::sqrt(alpha);
    CHECK((mean - equation_11).abs().max().item<double>() < 1e-9);
    // The fresh noise enters with the posterior standard deviation.
    torch::Tensor ones = torch::ones_like(noisy);
    double variance =
        schedule.beta(t) * (1 - schedule.alpha_bar(t - 1)) / (1 - schedule.alpha_bar(t));
    CHECK((schedule.reverse_step(noisy, noise, t, ones) - mean).mean().item<double>() ==
          doctest::Approx(std::sqrt(variance)));
  }
  // At t = 0 the step returns x_0 itself, without noise.
  torch::Tensor noisy =
      std::sqrt(schedule.alpha_bar(0)) * clean + std::sqrt(1 - schedule.alpha_bar(0)) * noise;
  CHECK((schedule.reverse_step(noisy, noise, 0, torch::ones_like(noisy)) - clean)
            .abs()
            .max()
            .item<double>() < 1e-9);
}

TEST_CASE("parse_beta_schedule names the flag and the choices") {
  CHECK(*parse_beta_schedule("cosine") == BetaSchedule::kCosine);
  auto bad = parse_beta_schedule("sigmoid");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() == "--beta-schedule 'sigmoid' is not one of linear, cosine");
}

}  // namespace scalestudy::ddpm
