#include "harness/models/flop_counter.hpp"
#include "harness/models/model_registry.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace sm = scalestudy::models;

namespace {

int64_t parameter_count(const sm::Model& model) {
  int64_t count = 0;
  for (const torch::Tensor& parameter : model.ptr()->parameters()) count += parameter.numel();
  return count;
}

sm::Model build(const std::string& name, sm::ModelOptions options) {
  auto model = sm::make_model(name, options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return *model;
}

// MACs of a 3x3 valid or same convolution producing out_side^2 x out_channels.
int64_t conv_macs(int64_t out_side, int64_t out_channels, int64_t in_channels, int64_t kernel) {
  return out_side * out_side * out_channels * in_channels * kernel * kernel;
}

}  // namespace

TEST_CASE("small-cnn: logits shape and parameter count by hand") {
  sm::Model model = build("small-cnn", {10, 1, 28});
  torch::NoGradGuard no_grad;
  CHECK(model.forward(torch::zeros({2, 1, 28, 28})).sizes() == torch::IntArrayRef({2, 10}));
  // conv1 1*32*9+32, conv2 32*64*9+64, fc1 (64*5*5)*128+128, fc2 128*10+10.
  CHECK(parameter_count(model) == 320 + 18496 + 204928 + 1290);
  for (const auto& module : model.ptr()->modules()) {
    CHECK(module->as<torch::nn::BatchNorm2d>() == nullptr);
  }
  sm::Model rgb = build("small-cnn", {100, 3, 32});
  CHECK(rgb.forward(torch::zeros({1, 3, 32, 32})).sizes() == torch::IntArrayRef({1, 100}));
}

TEST_CASE("resnet18 (CIFAR stem) has torchvision's 11,173,962 parameters for 10 classes") {
  sm::Model model = build("resnet18", {10, 3, 32});
  CHECK(parameter_count(model) == 11173962);
  torch::NoGradGuard no_grad;
  model.ptr()->eval();
  CHECK(model.forward(torch::zeros({2, 3, 32, 32})).sizes() == torch::IntArrayRef({2, 10}));
  const auto names = model.ptr()->named_parameters();
  CHECK(names.contains("conv1.weight"));
  CHECK(names.contains("layer1.0.conv2.weight"));
  CHECK(names.contains("layer2.0.downsample.0.weight"));
  CHECK_FALSE(names.contains("layer1.0.downsample.0.weight"));
  CHECK(names["conv1.weight"].sizes() == torch::IntArrayRef({64, 3, 3, 3}));
}

TEST_CASE("resnet18 takes 1-channel 28x28 images (MNIST family)") {
  sm::Model model = build("resnet18", {10, 1, 28});
  // Only the stem differs from the 3-channel model: 64 * (3 - 1) * 9 fewer weights.
  CHECK(parameter_count(model) == 11173962 - 64 * 2 * 9);
  torch::NoGradGuard no_grad;
  model.ptr()->eval();
  CHECK(model.forward(torch::zeros({2, 1, 28, 28})).sizes() == torch::IntArrayRef({2, 10}));
}

TEST_CASE("resnet50 (ImageNet stem) has torchvision's 25,557,032 parameters for 1000 classes") {
  sm::Model model = build("resnet50", {1000, 3, 224});
  CHECK(parameter_count(model) == 25557032);
  torch::NoGradGuard no_grad;
  model.ptr()->eval();
  CHECK(model.forward(torch::zeros({1, 3, 64, 64})).sizes() == torch::IntArrayRef({1, 1000}));
  CHECK(model.ptr()->named_parameters()["conv1.weight"].sizes() ==
        torch::IntArrayRef({64, 3, 7, 7}));
}

TEST_CASE("make_model errors list the valid names or the bad option") {
  auto unknown = sm::make_model("vgg16", {});
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message().find("small-cnn, resnet18, resnet50") != std::string::npos);
  auto tiny = sm::make_model("small-cnn", {10, 1, 8});
  REQUIRE_FALSE(tiny.is_ok());
  CHECK(tiny.status().message().find("image_size 8") != std::string::npos);
  CHECK_FALSE(sm::make_model("resnet18", {0, 3, 32}).is_ok());
}

TEST_CASE("forward cost of small-cnn matches the hand count") {
  sm::Model model = build("small-cnn", {10, 1, 28});
  auto cost = sm::forward_cost_per_sample(model.module, {1, 28, 28});
  REQUIRE_MESSAGE(cost.is_ok(), cost.status().message());
  // 28 -conv3-> 26 -pool-> 13 -conv3-> 11 -pool-> 5.
  CHECK(cost->conv_macs == conv_macs(26, 32, 1, 3) + conv_macs(11, 64, 32, 3));
  CHECK(cost->linear_macs == 64 * 5 * 5 * 128 + 128 * 10);
  CHECK(cost->flops() == doctest::Approx(2.0 * 2631040));
}

TEST_CASE("forward cost of resnet18-CIFAR at 32x32 is 0.555 GMACs (1.11 GFLOPs)") {
  sm::Model model = build("resnet18", {10, 3, 32});
  auto cost = sm::forward_cost_per_sample(model.module, {3, 32, 32});
  REQUIRE(cost.is_ok());
  // Stem; then per stage: 3x3 convs at 32, 16, 8, 4 px and 1x1 projections in stages 2-4.
  int64_t expected = conv_macs(32, 64, 3, 3) + 4 * conv_macs(32, 64, 64, 3);
  for (int64_t stage = 1; stage < 4; ++stage) {
    const int64_t side = 32 >> stage, planes = 64 << stage;
    expected += conv_macs(side, planes, planes / 2, 3) + 3 * conv_macs(side, planes, planes, 3) +
                conv_macs(side, planes, planes / 2, 1);
  }
  CHECK(cost->conv_macs == expected);
  CHECK(cost->linear_macs == 512 * 10);
  CHECK(cost->macs() == 555422720);
}

TEST_CASE("forward cost leaves the training mode and batch-norm statistics alone") {
  sm::Model model = build("resnet18", {10, 1, 28});
  model.ptr()->train();
  const torch::Tensor running_mean = model.ptr()->named_buffers()["bn1.running_mean"].clone();
  auto cost = sm::forward_cost_per_sample(model.module, {1, 28, 28});
  REQUIRE(cost.is_ok());
  CHECK(model.ptr()->is_training());
  CHECK(torch::equal(model.ptr()->named_buffers()["bn1.running_mean"], running_mean));
  auto wrong_shape = sm::forward_cost_per_sample(model.module, {28, 28});
  CHECK_FALSE(wrong_shape.is_ok());
}

TEST_CASE("forward cost of resnet50 at 224x224 is torchvision's 4.09 GMACs") {
  sm::Model model = build("resnet50", {1000, 3, 224});
  auto cost = sm::forward_cost_per_sample(model.module, {3, 224, 224});
  REQUIRE(cost.is_ok());
  CHECK(cost->linear_macs == 2048 * 1000);
  CHECK(static_cast<double>(cost->macs()) == doctest::Approx(4.09e9).epsilon(0.005));
}
