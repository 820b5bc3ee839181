#include "workloads/ddpm/noise_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace scalestudy::ddpm {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<double> linear_betas(int64_t timesteps) {
  const double scale = 1000.0 / static_cast<double>(timesteps);
  const double first = scale * 1e-4, last = scale * 0.02;
  std::vector<double> betas(timesteps);
  for (int64_t t = 0; t < timesteps; ++t) {
    const double fraction = timesteps > 1 ? static_cast<double>(t) / (timesteps - 1) : 0.0;
    betas[t] = first + (last - first) * fraction;
  }
  return betas;
}

std::vector<double> cosine_betas(int64_t timesteps) {
  constexpr double kOffset = 0.008;
  auto alpha_bar = [&](double t) {
    const double angle = (t / static_cast<double>(timesteps) + kOffset) / (1 + kOffset) * kPi / 2;
    return std::cos(angle) * std::cos(angle);
  };
  std::vector<double> betas(timesteps);
  for (int64_t t = 0; t < timesteps; ++t) {
    betas[t] = std::min(1 - alpha_bar(t + 1.0) / alpha_bar(static_cast<double>(t)), 0.999);
  }
  return betas;
}

torch::Tensor device_table(const std::vector<double>& values, torch::Device device) {
  return torch::tensor(values, torch::kFloat64).to(device, torch::kFloat);
}

}  // namespace

Result<BetaSchedule> parse_beta_schedule(const std::string& text) {
  if (text == "linear") return BetaSchedule::kLinear;
  if (text == "cosine") return BetaSchedule::kCosine;
  return Status::error("--beta-schedule '" + text + "' is not one of linear, cosine");
}

NoiseSchedule::NoiseSchedule(BetaSchedule kind, int64_t timesteps, torch::Device device)
    : betas_(kind == BetaSchedule::kLinear ? linear_betas(timesteps) : cosine_betas(timesteps)) {
  double product = 1;
  std::vector<double> sqrt_alpha_bars, sqrt_one_minus;
  for (double beta : betas_) {
    product *= 1 - beta;
    alpha_bars_.push_back(product);
    sqrt_alpha_bars.push_back(std::sqrt(product));
    sqrt_one_minus.push_back(std::sqrt(1 - product));
  }
  sqrt_alpha_bars_ = device_table(sqrt_alpha_bars, device);
  sqrt_one_minus_alpha_bars_ = device_table(sqrt_one_minus, device);
}

torch::Tensor NoiseSchedule::add_noise(const torch::Tensor& clean, const torch::Tensor& noise,
                                       const torch::Tensor& timesteps) const {
  std::vector<int64_t> per_sample(clean.dim(), 1);
  per_sample[0] = -1;
  torch::Tensor signal = sqrt_alpha_bars_.index_select(0, timesteps).view(per_sample);
  torch::Tensor spread = sqrt_one_minus_alpha_bars_.index_select(0, timesteps).view(per_sample);
  return signal * clean + spread * noise;
}

torch::Tensor NoiseSchedule::reverse_step(const torch::Tensor& noisy,
                                          const torch::Tensor& predicted_noise, int64_t t,
                                          const torch::Tensor& fresh_noise) const {
  const double alpha_bar_t = alpha_bars_[t];
  const double alpha_bar_previous = t > 0 ? alpha_bars_[t - 1] : 1.0;
  const double beta_t = betas_[t];
  torch::Tensor clean =
      ((noisy - std::sqrt(1 - alpha_bar_t) * predicted_noise) / std::sqrt(alpha_bar_t))
          .clamp(-1, 1);
  const double clean_weight = std::sqrt(alpha_bar_previous) * beta_t / (1 - alpha_bar_t);
  const double noisy_weight = std::sqrt(1 - beta_t) * (1 - alpha_bar_previous) / (1 - alpha_bar_t);
  torch::Tensor mean = clean_weight * clean + noisy_weight * noisy;
  if (t == 0) return mean;
  const double variance = beta_t * (1 - alpha_bar_previous) / (1 - alpha_bar_t);
  return mean + std::sqrt(variance) * fresh_noise;
}

}  // namespace scalestudy::ddpm
