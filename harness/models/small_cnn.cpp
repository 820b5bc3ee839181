#include "harness/models/small_cnn.hpp"

namespace scalestudy::models {

SmallCnnImpl::SmallCnnImpl(int64_t in_channels, int64_t image_size, int64_t num_classes) {
  const int64_t feature_size = final_feature_size(image_size);
  conv1_ =
      register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, 32, 3)));
  conv2_ = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)));
  fc1_ = register_module("fc1", torch::nn::Linear(64 * feature_size * feature_size, 128));
  fc2_ = register_module("fc2", torch::nn::Linear(128, num_classes));
}

torch::Tensor SmallCnnImpl::forward(torch::Tensor x) {
  x = torch::max_pool2d(torch::relu(conv1_(x)), 2);
  x = torch::max_pool2d(torch::relu(conv2_(x)), 2);
  x = torch::relu(fc1_(x.flatten(1)));
  return fc2_(x);
}

}  // namespace scalestudy::models
