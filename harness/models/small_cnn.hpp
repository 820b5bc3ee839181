// SmallCnn: a two-convolution network that trains to ~90% on Fashion-MNIST in two CPU
// epochs; the harness's fast model for tests and CPU scaling runs. No batch norm, so a DDP
// run and a single-process run with the same global batch compute identical updates.
//   conv(C->32, 3) relu maxpool2 conv(32->64, 3) relu maxpool2 fc(->128) relu fc(->classes)
// Square images of size >= 10. A torch::nn::Module: not synchronised.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace scalestudy::models {

class SmallCnnImpl : public torch::nn::Module {
 public:
  SmallCnnImpl(int64_t in_channels, int64_t image_size, int64_t num_classes);
  torch::Tensor forward(torch::Tensor x);

  // Side of the last feature map: two rounds of (3x3 valid conv, 2x2 pool).
  static int64_t final_feature_size(int64_t image_size) { return ((image_size - 2) / 2 - 2) / 2; }

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(SmallCnn);

}  // namespace scalestudy::models
