// UNet: the DDPM noise-prediction network (Ho et al. 2020; the shape of diffusers'
// UNet2DModel): given noisy images x_t and their diffusion steps t, it predicts the noise
// that was added. An input convolution; per resolution level `res_blocks` UNetBlocks
// (residual blocks, self-attention where the side is <= attention_max_size) and a strided
// downsampling convolution; a middle of residual-attention-residual; the mirrored up path,
// each block fed the matching down-path activation (skip connection), nearest upsampling
// plus a convolution between levels; GroupNorm-SiLU-conv3x3 out. The time embedding (a
// sinusoidal encoding through a 2-layer MLP, 4 x base_channels wide) enters every
// residual block. Any image side works: upsampling returns to the skip's exact size.
// A torch::nn::Module: not synchronised.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "harness/core/status.hpp"
#include "workloads/ddpm/unet_blocks.hpp"

namespace scalestudy::ddpm {

struct UNetConfig {
  int64_t image_channels = 1;
  int64_t image_size = 28;  // height = width; decides where attention runs
  int64_t base_channels = 64;
  std::vector<int64_t> channel_multipliers = {1, 2, 2};  // per level, highest resolution first
  int64_t res_blocks = 2;                                // per level on the down path
  int64_t attention_max_size = 16;  // self-attention at levels whose side is <= this
};

// Errors name the out-of-range field.
Status validate_unet_config(const UNetConfig& config);

class UNetImpl : public torch::nn::Module {
 public:
  explicit UNetImpl(const UNetConfig& config);
  // `noisy`: float [B, C, H, W]; `timesteps`: int64 [B]. Returns the predicted noise,
  // shaped like `noisy`.
  torch::Tensor forward(const torch::Tensor& noisy, const torch::Tensor& timesteps);

  const UNetConfig& config() const { return config_; }

 private:
  UNetConfig config_;
  torch::nn::Conv2d input_conv_{nullptr};
  torch::nn::Sequential time_mlp_{nullptr};
  std::vector<UNetBlock> down_blocks_;  // res_blocks per level
  std::vector<torch::nn::Conv2d> downsamples_;
  UNetBlock middle_attention_{nullptr};
  ResidualBlock middle_residual_{nullptr};
  std::vector<UNetBlock> up_blocks_;  // res_blocks + 1 per level, lowest resolution first
  std::vector<torch::nn::Conv2d> upsample_convs_;
  GroupNorm32 output_norm_{nullptr};
  torch::nn::Conv2d output_conv_{nullptr};
};
TORCH_MODULE(UNet);

}  // namespace scalestudy::ddpm
