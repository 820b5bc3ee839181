// NoiseSchedule: the DDPM forward (noising) process q(x_t | x_0) over T steps and the one
// reverse step ancestral sampling takes.
//   linear  betas from 1e-4 to 0.02 for T = 1000 (Ho et al. 2020), both ends scaled by
//           1000 / T for other T so that x_T is pure noise at any length (Nichol & Dhariwal)
//   cosine  alpha_bar(t) = cos^2(((t / T + s) / (1 + s)) pi / 2), s = 0.008, betas capped at
//           0.999 (Nichol & Dhariwal 2021)
// The tables are computed in float64 and kept as float32 on the training device for the
// per-sample gathers of add_noise(), and in float64 on the host for the reverse step.
// Immutable after construction; thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::ddpm {

enum class BetaSchedule { kLinear, kCosine };

Result<BetaSchedule> parse_beta_schedule(const std::string& text);

class NoiseSchedule {
 public:
  NoiseSchedule(BetaSchedule kind, int64_t timesteps, torch::Device device = torch::kCPU);

  int64_t timesteps() const { return static_cast<int64_t>(betas_.size()); }
  double beta(int64_t t) const { return betas_[t]; }
  double alpha_bar(int64_t t) const { return alpha_bars_[t]; }

  // x_t = sqrt(alpha_bar_t) x_0 + sqrt(1 - alpha_bar_t) noise, with each sample's own t
  // (int64 [B] on the tables' device); `clean` and `noise` are [B, ...].
  torch::Tensor add_noise(const torch::Tensor& clean, const torch::Tensor& noise,
                          const torch::Tensor& timesteps) const;

  // One ancestral step x_t -> x_{t-1} from the predicted noise (diffusers' DDPMScheduler
  // defaults): the implied x_0 clipped to [-1, 1], the posterior mean of q(x_{t-1} | x_t,
  // x_0), plus sqrt(posterior variance) * `fresh_noise` for t > 0.
  torch::Tensor reverse_step(const torch::Tensor& noisy, const torch::Tensor& predicted_noise,
                             int64_t t, const torch::Tensor& fresh_noise) const;

 private:
  std::vector<double> betas_;
  std::vector<double> alpha_bars_;
  torch::Tensor sqrt_alpha_bars_;            // float32 [T] on the device
  torch::Tensor sqrt_one_minus_alpha_bars_;  // float32 [T] on the device
};

}  // namespace scalestudy::ddpm
