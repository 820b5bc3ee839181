// The DDPM UNet: output shaped like the input at every preset's side, attention exactly at
// the levels of side <= 16, stable parameter names (checkpoints use them), and every
// parameter reached by the loss once the zero-initialised branches have moved.
#include "harness/gpu/precision.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "workloads/ddpm/size_preset.hpp"
#include "workloads/ddpm/unet.hpp"

namespace scalestudy::ddpm {
namespace {

UNetConfig narrow_config(const SizePreset& preset) {
  UNetConfig config;
  config.image_size = preset.image_size;
  config.channel_multipliers = preset.channel_multipliers;
  config.base_channels = 8;
  config.res_blocks = 1;
  return config;
}

int64_t attention_count(UNet& unet) {
  int64_t count = 0;
  for (const auto& module : unet->modules()) count += module->as<SelfAttentionImpl>() != nullptr;
  return count;
}

}  // namespace

TEST_CASE("UNet predicts noise shaped like its input at every preset's side") {
  for (const std::string& name : size_preset_names()) {
    CAPTURE(name);
    auto preset = find_size_preset(name);
    REQUIRE(preset.is_ok());
    UNetConfig config = narrow_config(*preset);
    REQUIRE(validate_unet_config(config).is_ok());
    UNet unet(config);
    torch::NoGradGuard no_grad;
    torch::Tensor noisy = torch::randn({2, 1, preset->image_size, preset->image_size});
    torch::Tensor predicted = unet(noisy, torch::tensor({0, 999}, torch::kLong));
    CHECK(predicted.sizes() == noisy.sizes());
    CHECK(predicted.isfinite().all().item<bool>());

    // Levels of side <= 16 attend: res_blocks blocks each on the way down, res_blocks + 1
    // on the way up, plus the middle block.
    int64_t attending_levels = 0;
    int64_t side = preset->image_size;
    for (size_t level = 0; level < config.channel_multipliers.size(); ++level) {
      attending_levels += side <= config.attention_max_size;
      side = (side + 1) / 2;
    }
    CHECK(attending_levels >= 1);
    CHECK(attention_count(unet) ==
          attending_levels * config.res_blocks + attending_levels * (config.res_blocks + 1) + 1);
  }
}

TEST_CASE("UNet parameter names follow the module tree (the checkpoint keys)") {
  auto small = find_size_preset("small");
  REQUIRE(small.is_ok());
  UNet unet(narrow_config(*small));
  auto names = unet->named_parameters();
  CHECK(names.contains("input_conv.weight"));
  CHECK(names.contains("time_mlp.0.weight"));
  CHECK(names.contains("down.0.residual.conv1.weight"));
  CHECK(names.contains("down.2.attention.qkv.weight"));
  CHECK_FALSE(names.contains("down.0.attention.qkv.weight"));  // 28 px: no attention
  CHECK(names.contains("middle_attention.attention.projection.weight"));
  CHECK(names.contains("up.0.residual.skip.weight"));  // concatenated skips change channels
  CHECK(names.contains("output_conv.weight"));
  // Zero-initialised residual branches: each block starts as the identity.
  CHECK(names["down.0.residual.conv2.weight"].abs().sum().item<double>() == 0);
  CHECK(names["middle_attention.attention.projection.weight"].abs().sum().item<double>() == 0);
}

TEST_CASE("every UNet parameter gets a gradient, and the output depends on the step") {
  torch::manual_seed(3);
  auto small = find_size_preset("small");
  REQUIRE(small.is_ok());
  UNet unet(narrow_config(*small));
  torch::optim::Adam optimizer(unet->parameters(), torch::optim::AdamOptions(1e-2));
  torch::Tensor noisy = torch::randn({4, 1, 28, 28});
  torch::Tensor noise = torch::randn({4, 1, 28, 28});
  torch::Tensor timesteps = torch::tensor({1, 250, 500, 999}, torch::kLong);
  // The first step moves the zero-initialised convolutions; the second reaches through them.
  for (int step = 0; step < 2; ++step) {
    optimizer.zero_grad();
    torch::nn::functional::mse_loss(unet(noisy, timesteps), noise).backward();
    if (step == 1) {
      for (const auto& item : unet->named_parameters()) {
        CAPTURE(item.key());
        REQUIRE(item.value().grad().defined());
        CHECK(item.value().grad().abs().sum().item<double>() > 0);
      }
    }
    optimizer.step();
  }
  torch::NoGradGuard no_grad;
  torch::Tensor one = noisy.narrow(0, 0, 1);
  torch::Tensor early = unet(one, torch::tensor({10}, torch::kLong));
  torch::Tensor late = unet(one, torch::tensor({900}, torch::kLong));
  CHECK((early - late).abs().max().item<double>() > 1e-4);
}

TEST_CASE("group_norm: the reference 32 groups when wide enough, never one-channel groups") {
  CHECK(group_norm(64)->options.num_groups() == 32);
  CHECK(group_norm(256)->options.num_groups() == 32);
  CHECK(group_norm(16)->options.num_groups() == 8);
  CHECK(group_norm(8)->options.num_groups() == 4);
  CHECK(group_norm(2)->options.num_groups() == 1);
}

TEST_CASE("UNet runs under autocast (bf16 on CPU) close to its float32 prediction") {
  torch::manual_seed(4);
  auto small = find_size_preset("small");
  REQUIRE(small.is_ok());
  UNet unet(narrow_config(*small));
  {
    // Non-zero residual branches, so every block contributes.
    torch::NoGradGuard no_grad;
    for (torch::Tensor& parameter : unet->parameters())
      parameter.add_(torch::randn_like(parameter) * 0.05);
  }
  torch::NoGradGuard no_grad;
  torch::Tensor noisy = torch::randn({2, 1, 28, 28});
  torch::Tensor steps = torch::tensor({5, 600}, torch::kLong);
  torch::Tensor reference = unet(noisy, steps);
  torch::Tensor mixed;
  {
    gpu::AutocastScope autocast(gpu::Precision::kBf16, c10::DeviceType::CPU);
    mixed = unet(noisy, steps);
  }
  CHECK((mixed.scalar_type() == torch::kBFloat16));  // the output convolution autocasts
  CHECK(mixed.isfinite().all().item<bool>());
  const double error = (mixed.to(torch::kFloat) - reference).abs().max().item<double>();
  MESSAGE("bf16 autocast vs float32: max |difference| " << error << " of max |prediction| "
                                                        << reference.abs().max().item<double>());
  CHECK(error < 0.05 * reference.abs().max().item<double>());
  // GroupNorm32 hands back the input's dtype after normalising in float32.
  torch::Tensor half = torch::randn({2, 8, 4, 4}).to(torch::kBFloat16);
  CHECK((group_norm(8)(half).scalar_type() == torch::kBFloat16));
}

TEST_CASE("validate_unet_config names the bad setting") {
  UNetConfig config;
  config.base_channels = 7;
  auto odd = validate_unet_config(config);
  REQUIRE_FALSE(odd.is_ok());
  CHECK(odd.message().find("--base-channels") != std::string::npos);
  config = UNetConfig();
  config.res_blocks = 0;
  REQUIRE_FALSE(validate_unet_config(config).is_ok());
  config = UNetConfig();
  config.channel_multipliers.clear();
  REQUIRE_FALSE(validate_unet_config(config).is_ok());
}

}  // namespace scalestudy::ddpm
