// ResNet (He et al. 2016) in the two shapes scaling studies use, written like torchvision's
// Python: BasicBlock and Bottleneck residual blocks; four stages of 64/128/256/512 planes.
//   - CIFAR stem (resnet18 in CIFAR papers): 3x3 conv stride 1, no max-pool, for 28-32 px.
//   - ImageNet stem (resnet50): 7x7 conv stride 2 + 3x3 max-pool stride 2, for 224 px.
// Parameter names match torchvision's (conv1, bn1, layer1.0.conv1, layer1.0.downsample.0,
// fc), and initialisation follows it (Kaiming-normal fan-out convs, unit batch norms).
// torch::nn::Modules: not synchronised.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace scalestudy::models {

class BasicBlockImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;
  BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Sequential downsample_{nullptr};  // registered only when the shape changes
};
TORCH_MODULE(BasicBlock);

class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;
  BottleneckImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(Bottleneck);

enum class ResNetBlock { kBasic, kBottleneck };
enum class ResNetStem { kCifar, kImageNet };

struct ResNetConfig {
  ResNetBlock block = ResNetBlock::kBasic;
  std::vector<int64_t> blocks_per_stage = {2, 2, 2, 2};
  ResNetStem stem = ResNetStem::kCifar;
  int64_t in_channels = 3;
  int64_t num_classes = 10;
};

class ResNetImpl : public torch::nn::Module {
 public:
  explicit ResNetImpl(const ResNetConfig& config);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  bool stem_max_pool_ = false;
  torch::nn::Sequential layer1_{nullptr}, layer2_{nullptr}, layer3_{nullptr}, layer4_{nullptr};
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet);

}  // namespace scalestudy::models
