#include "workloads/ddpm/unet_blocks.hpp"

#include <cmath>
#include <numeric>

namespace scalestudy::ddpm {
namespace {

namespace F = torch::nn::functional;

torch::nn::Conv2d conv1x1(int64_t in_channels, int64_t out_channels) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, 1));
}

void zero_init(torch::nn::Conv2d& conv) {
  torch::NoGradGuard no_grad;
  conv->weight.zero_();
  conv->bias.zero_();
}

}  // namespace

torch::Tensor timestep_embedding(const torch::Tensor& timesteps, int64_t dim) {
  const int64_t half = dim / 2;
  auto options = torch::TensorOptions().dtype(torch::kFloat).device(timesteps.device());
  torch::Tensor frequencies =
      torch::exp(torch::arange(half, options) * (-std::log(10000.0) / static_cast<double>(half)));
  torch::Tensor angles = timesteps.to(torch::kFloat).unsqueeze(1) * frequencies.unsqueeze(0);
  return torch::cat({torch::sin(angles), torch::cos(angles)}, 1);
}

torch::nn::Conv2d conv3x3(int64_t in_channels, int64_t out_channels, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in_channels, out_channels, 3).stride(stride).padding(1));
}

torch::Tensor GroupNorm32Impl::forward(const torch::Tensor& input) {
  return torch::nn::GroupNormImpl::forward(input.to(torch::kFloat)).to(input.scalar_type());
}

GroupNorm32 group_norm(int64_t channels) {
  return GroupNorm32(torch::nn::GroupNormOptions(std::gcd<int64_t>(32, channels / 2), channels));
}

ResidualBlockImpl::ResidualBlockImpl(int64_t in_channels, int64_t out_channels,
                                     int64_t time_channels)
    : norm1_(register_module("norm1", group_norm(in_channels))),
      norm2_(register_module("norm2", group_norm(out_channels))),
      conv1_(register_module("conv1", conv3x3(in_channels, out_channels))),
      conv2_(register_module("conv2", conv3x3(out_channels, out_channels))),
      time_projection_(
          register_module("time_projection", torch::nn::Linear(time_channels, out_channels))) {
  zero_init(conv2_);
  if (in_channels != out_channels)
    skip_ = register_module("skip", conv1x1(in_channels, out_channels));
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& time) {
  torch::Tensor h = conv1_(F::silu(norm1_(x)));
  h = h + time_projection_(F::silu(time)).unsqueeze(-1).unsqueeze(-1);
  h = conv2_(F::silu(norm2_(h)));
  return (skip_ ? skip_(x) : x) + h;
}

SelfAttentionImpl::SelfAttentionImpl(int64_t channels)
    : norm_(register_module("norm", group_norm(channels))),
      qkv_(register_module("qkv", conv1x1(channels, 3 * channels))),
      projection_(register_module("projection", conv1x1(channels, channels))) {
  zero_init(projection_);
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t batch = x.size(0), channels = x.size(1), height = x.size(2), width = x.size(3);
  std::vector<torch::Tensor> qkv = qkv_(norm_(x)).reshape({batch, 3 * channels, -1}).chunk(3, 1);
  // weights[b, i, j]: how much position i attends to position j.
  torch::Tensor weights =
      torch::softmax(torch::bmm(qkv[0].transpose(1, 2), qkv[1]) / std::sqrt(channels), -1);
  torch::Tensor attended = torch::bmm(qkv[2], weights.transpose(1, 2));
  return x + projection_(attended.reshape({batch, channels, height, width}));
}

UNetBlockImpl::UNetBlockImpl(int64_t in_channels, int64_t out_channels, int64_t time_channels,
                             bool with_attention)
    : residual_(
          register_module("residual", ResidualBlock(in_channels, out_channels, time_channels))) {
  if (with_attention) attention_ = register_module("attention", SelfAttention(out_channels));
}

torch::Tensor UNetBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& time) {
  torch::Tensor h = residual_(x, time);
  return attention_ ? attention_(h) : h;
}

}  // namespace scalestudy::ddpm
