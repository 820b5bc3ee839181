// The building blocks of the DDPM UNet (Ho et al. 2020), written like their Python twins:
//   timestep_embedding  sinusoidal features of the diffusion step (as a Transformer's
//                       position encoding), turned into the time embedding by an MLP
//   ResidualBlock       GroupNorm-SiLU-conv3x3, + projected time embedding, GroupNorm-SiLU-
//                       conv3x3, plus a (1x1-projected where channels change) skip
//   SelfAttention       single-head attention over the H x W positions, residual
//   UNetBlock           a ResidualBlock, followed by SelfAttention at low resolutions
// The last layer of every residual branch starts at zero (the reference implementation's
// zero init), so each block starts as the identity. torch::nn::Modules: not synchronised.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace scalestudy::ddpm {

// float [B, dim] for int64 `timesteps` [B]; `dim` even.
torch::Tensor timestep_embedding(const torch::Tensor& timesteps, int64_t dim);

// GroupNorm computed in float32 whatever the input's dtype, returned in the input's dtype
// (improved-diffusion's GroupNorm32): under autocast the convolutions hand it fp16/bf16
// activations whose statistics want float32, and LibTorch 1.13's CPU kernel rejects a
// bfloat16 input with float32 affine parameters.
class GroupNorm32Impl : public torch::nn::GroupNormImpl {
 public:
  using torch::nn::GroupNormImpl::GroupNormImpl;
  torch::Tensor forward(const torch::Tensor& input);
};
TORCH_MODULE(GroupNorm32);

// 3x3 convolution keeping the side (stride 1) or halving it, rounding up (stride 2).
torch::nn::Conv2d conv3x3(int64_t in_channels, int64_t out_channels, int64_t stride = 1);
// GroupNorm over `channels` (even) in at most 32 groups (the reference setting) of at least
// 2 channels: one-channel groups would normalise away the per-channel shift by which the
// time embedding enters a residual block, as happens at the narrow widths of tests.
GroupNorm32 group_norm(int64_t channels);

class ResidualBlockImpl : public torch::nn::Module {
 public:
  ResidualBlockImpl(int64_t in_channels, int64_t out_channels, int64_t time_channels);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& time);

 private:
  GroupNorm32 norm1_{nullptr}, norm2_{nullptr};
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear time_projection_{nullptr};
  torch::nn::Conv2d skip_{nullptr};  // registered only when the channels change
};
TORCH_MODULE(ResidualBlock);

class SelfAttentionImpl : public torch::nn::Module {
 public:
  explicit SelfAttentionImpl(int64_t channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  GroupNorm32 norm_{nullptr};
  torch::nn::Conv2d qkv_{nullptr}, projection_{nullptr};
};
TORCH_MODULE(SelfAttention);

class UNetBlockImpl : public torch::nn::Module {
 public:
  UNetBlockImpl(int64_t in_channels, int64_t out_channels, int64_t time_channels,
                bool with_attention);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& time);

 private:
  ResidualBlock residual_{nullptr};
  SelfAttention attention_{nullptr};  // registered only with attention
};
TORCH_MODULE(UNetBlock);

}  // namespace scalestudy::ddpm
