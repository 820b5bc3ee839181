// Generates images from a trained noise predictor by DDPM ancestral sampling (Ho et al.
// 2020, Algorithm 2): start from Gaussian noise x_T and apply NoiseSchedule::reverse_step
// for t = T-1 ... 0, one UNet evaluation per step, in `chunk`-sized batches.
// Runs the UNet in evaluation mode without gradients; not thread-safe for one UNet.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "workloads/ddpm/noise_schedule.hpp"
#include "workloads/ddpm/unet.hpp"

namespace scalestudy::ddpm {

// float [count, C, H, W] in [-1, 1] on the UNet's device (C, H, W from its config).
torch::Tensor sample_images(UNet& unet, const NoiseSchedule& schedule, int64_t count, int64_t chunk,
                            at::Generator& generator);

}  // namespace scalestudy::ddpm
