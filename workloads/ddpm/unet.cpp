#include "workloads/ddpm/unet.hpp"

namespace scalestudy::ddpm {
namespace {

namespace F = torch::nn::functional;

// The image side at `level` after that many stride-2 convolutions (rounding up, as they do).
int64_t side_at(int64_t image_size, size_t level) {
  int64_t side = image_size;
  for (size_t halving = 0; halving < level; ++halving) side = (side + 1) / 2;
  return side;
}

}  // namespace

Status validate_unet_config(const UNetConfig& config) {
  if (config.image_channels < 1) return Status::error("UNet: image channels must be >= 1");
  if (config.image_size < 1) return Status::error("UNet: image size must be >= 1");
  if (config.base_channels < 2 || config.base_channels % 2 != 0) {
    return Status::error(
        "--base-channels must be even and >= 2 (the time encoding's sin and cos halves, the "
        "norms' channel pairs)");
  }
  if (config.channel_multipliers.empty()) return Status::error("UNet: no resolution levels");
  for (int64_t multiplier : config.channel_multipliers) {
    if (multiplier < 1) return Status::error("UNet: channel multipliers must be >= 1");
  }
  if (config.res_blocks < 1) return Status::error("--res-blocks must be >= 1");
  if (config.attention_max_size < 0) return Status::error("--attention-max-size must be >= 0");
  return Status::ok();
}

UNetImpl::UNetImpl(const UNetConfig& config) : config_(config) {
  const int64_t base = config.base_channels;
  const int64_t time_channels = 4 * base;
  const size_t levels = config.channel_multipliers.size();
  auto attends = [&](size_t level) {
    return side_at(config.image_size, level) <= config.attention_max_size;
  };

  input_conv_ = register_module("input_conv", conv3x3(config.image_channels, base));
  time_mlp_ = register_module(
      "time_mlp", torch::nn::Sequential(torch::nn::Linear(base, time_channels), torch::nn::SiLU(),
                                        torch::nn::Linear(time_channels, time_channels)));

  // Channels of every down-path activation the up path consumes, in push order.
  std::vector<int64_t> skip_channels = {base};
  int64_t channels = base;
  torch::nn::ModuleList down, downsample;
  for (size_t level = 0; level < levels; ++level) {
    const int64_t out_channels = base * config.channel_multipliers[level];
    for (int64_t block = 0; block < config.res_blocks; ++block) {
      down_blocks_.push_back(UNetBlock(channels, out_channels, time_channels, attends(level)));
      down->push_back(down_blocks_.back());
      channels = out_channels;
      skip_channels.push_back(channels);
    }
    if (level + 1 < levels) {
      downsamples_.push_back(conv3x3(channels, channels, 2));
      downsample->push_back(downsamples_.back());
      skip_channels.push_back(channels);
    }
  }
  register_module("down", down);
  register_module("downsample", downsample);

  middle_attention_ =
      register_module("middle_attention", UNetBlock(channels, channels, time_channels, true));
  middle_residual_ =
      register_module("middle_residual", ResidualBlock(channels, channels, time_channels));

  torch::nn::ModuleList up, upsample;
  for (size_t level = levels; level-- > 0;) {
    const int64_t out_channels = base * config.channel_multipliers[level];
    for (int64_t block = 0; block <= config.res_blocks; ++block) {
      const int64_t in_channels = channels + skip_channels.back();
      skip_channels.pop_back();
      up_blocks_.push_back(UNetBlock(in_channels, out_channels, time_channels, attends(level)));
      up->push_back(up_blocks_.back());
      channels = out_channels;
    }
    if (level > 0) {
      upsample_convs_.push_back(conv3x3(channels, channels));
      upsample->push_back(upsample_convs_.back());
    }
  }
  register_module("up", up);
  register_module("upsample", upsample);

  output_norm_ = register_module("output_norm", group_norm(channels));
  output_conv_ = register_module("output_conv", conv3x3(channels, config.image_channels));
}

torch::Tensor UNetImpl::forward(const torch::Tensor& noisy, const torch::Tensor& timesteps) {
  torch::Tensor time = time_mlp_->forward(timestep_embedding(timesteps, config_.base_channels));
  torch::Tensor h = input_conv_(noisy);
  std::vector<torch::Tensor> skips = {h};
  const size_t levels = config_.channel_multipliers.size();
  const size_t res_blocks = static_cast<size_t>(config_.res_blocks);
  for (size_t level = 0; level < levels; ++level) {
    for (size_t block = 0; block < res_blocks; ++block) {
      h = down_blocks_[level * res_blocks + block](h, time);
      skips.push_back(h);
    }
    if (level + 1 < levels) {
      h = downsamples_[level](h);
      skips.push_back(h);
    }
  }
  h = middle_residual_(middle_attention_(h, time), time);
  for (size_t up_level = 0; up_level < levels; ++up_level) {
    for (size_t block = 0; block <= res_blocks; ++block) {
      h = up_blocks_[up_level * (res_blocks + 1) + block](torch::cat({h, skips.back()}, 1), time);
      skips.pop_back();
    }
    if (up_level + 1 < levels) {
      const torch::Tensor& next_skip = skips.back();
      h = F::interpolate(h, F::InterpolateFuncOptions()
                                .size(std::vector<int64_t>{next_skip.size(2), next_skip.size(3)})
                                .mode(torch::kNearest));
      h = upsample_convs_[up_level](h);
    }
  }
  return output_conv_(F::silu(output_norm_(h)));
}

}  // namespace scalestudy::ddpm
