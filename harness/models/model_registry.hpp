// Builds a classification model by name for the training loop: "small-cnn", "resnet18"
// (CIFAR variant) and "resnet50" (ImageNet variant), each for a given number of classes,
// input channels and (square) image size. Weights are initialised from torch's global
// generator: seed it (torch::manual_seed) first for reproducible weights; DDP broadcasts
// rank 0's anyway. Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::models {

struct ModelOptions {
  int64_t num_classes = 10;
  int64_t in_channels = 3;
  int64_t image_size = 32;  // height = width, in pixels
};

// A built model: `module` maps float [N, C, H, W] to logits [N, num_classes].
struct Model {
  std::string name;
  ModelOptions options;
  torch::nn::AnyModule module;

  std::shared_ptr<torch::nn::Module> ptr() const { return module.ptr(); }
  torch::Tensor forward(const torch::Tensor& images) { return module.forward(images); }
};

std::vector<std::string> model_names();

// Errors name the model and the option that is out of range, or list the valid names.
Result<Model> make_model(const std::string& name, const ModelOptions& options);

}  // namespace scalestudy::models
