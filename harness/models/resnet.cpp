#include "harness/models/resnet.hpp"

namespace scalestudy::models {
namespace {

torch::nn::Conv2d conv(int64_t in_planes, int64_t out_planes, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in_planes, out_planes, kernel)
                               .stride(stride)
                               .padding(kernel / 2)
                               .bias(false));
}

// torchvision's projection shortcut: 1x1 conv + batch norm, when stride or width change.
torch::nn::Sequential make_downsample(int64_t in_planes, int64_t out_planes, int64_t stride) {
  if (stride == 1 && in_planes == out_planes) return nullptr;
  return torch::nn::Sequential(conv(in_planes, out_planes, 1, stride),
                               torch::nn::BatchNorm2d(out_planes));
}

template <typename Block>
torch::nn::Sequential make_stage(int64_t& in_planes, int64_t planes, int64_t blocks,
                                 int64_t stride) {
  torch::nn::Sequential stage;
  for (int64_t i = 0; i < blocks; ++i) {
    stage->push_back(Block(in_planes, planes, i == 0 ? stride : 1));
    in_planes = planes * Block::Impl::kExpansion;
  }
  return stage;
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride) {
  conv1_ = register_module("conv1", conv(in_planes, planes, 3, stride));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(planes));
  conv2_ = register_module("conv2", conv(planes, planes, 3, 1));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(planes));
  downsample_ = make_downsample(in_planes, planes * kExpansion, stride);
  if (downsample_) register_module("downsample", downsample_);
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x) {
  torch::Tensor out = torch::relu(bn1_(conv1_(x)));
  out = bn2_(conv2_(out));
  return torch::relu(out + (downsample_ ? downsample_->forward(x) : x));
}

BottleneckImpl::BottleneckImpl(int64_t in_planes, int64_t planes, int64_t stride) {
  // Stride on the 3x3 conv (torchvision's "ResNet v1.5").
  conv1_ = register_module("conv1", conv(in_planes, planes, 1, 1));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(planes));
  conv2_ = register_module("conv2", conv(planes, planes, 3, stride));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(planes));
  conv3_ = register_module("conv3", conv(planes, planes * kExpansion, 1, 1));
  bn3_ = register_module("bn3", torch::nn::BatchNorm2d(planes * kExpansion));
  downsample_ = make_downsample(in_planes, planes * kExpansion, stride);
  if (downsample_) register_module("downsample", downsample_);
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  torch::Tensor out = torch::relu(bn1_(conv1_(x)));
  out = torch::relu(bn2_(conv2_(out)));
  out = bn3_(conv3_(out));
  return torch::relu(out + (downsample_ ? downsample_->forward(x) : x));
}

ResNetImpl::ResNetImpl(const ResNetConfig& config) {
  TORCH_CHECK(config.blocks_per_stage.size() == 4, "ResNet needs 4 stages, got ",
              config.blocks_per_stage.size());
  const bool imagenet = config.stem == ResNetStem::kImageNet;
  conv1_ =
      register_module("conv1", conv(config.in_channels, 64, imagenet ? 7 : 3, imagenet ? 2 : 1));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(64));
  stem_max_pool_ = imagenet;
  int64_t in_planes = 64;
  torch::nn::Sequential* stages[] = {&layer1_, &layer2_, &layer3_, &layer4_};
  for (size_t s = 0; s < 4; ++s) {
    const int64_t planes = int64_t{64} << s;
    const int64_t stride = s == 0 ? 1 : 2;
    const int64_t blocks = config.blocks_per_stage.at(s);
    *stages[s] = register_module("layer" + std::to_string(s + 1),
                                 config.block == ResNetBlock::kBasic
                                     ? make_stage<BasicBlock>(in_planes, planes, blocks, stride)
                                     : make_stage<Bottleneck>(in_planes, planes, blocks, stride));
  }
  fc_ = register_module("fc", torch::nn::Linear(in_planes, config.num_classes));
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* convolution = module->as<torch::nn::Conv2d>()) {
      torch::nn::init::kaiming_normal_(convolution->weight, 0.0, torch::kFanOut, torch::kReLU);
    }
  }
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  x = torch::relu(bn1_(conv1_(x)));
  if (stem_max_pool_) x = torch::max_pool2d(x, 3, 2, 1);
  x = layer4_->forward(layer3_->forward(layer2_->forward(layer1_->forward(x))));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return fc_(x);
}

}  // namespace scalestudy::models
