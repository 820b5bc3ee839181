#include "harness/models/model_registry.hpp"

#include "harness/models/resnet.hpp"
#include "harness/models/small_cnn.hpp"

namespace scalestudy::models {

std::vector<std::string> model_names() {
  return {"small-cnn", "resnet18", "resnet50"};
}

Result<Model> make_model(const std::string& name, const ModelOptions& options) {
  if (options.num_classes < 1 || options.in_channels < 1) {
    return Status::error(name + ": num_classes and in_channels must be >= 1");
  }
  Model model{name, options, {}};
  if (name == "small-cnn") {
    if (SmallCnnImpl::final_feature_size(options.image_size) < 1) {
      return Status::error(name + ": image_size " + std::to_string(options.image_size) +
                           " is below the minimum of 10");
    }
    model.module = torch::nn::AnyModule(
        SmallCnn(options.in_channels, options.image_size, options.num_classes));
  } else if (name == "resnet18" || name == "resnet50") {
    // Five stride-2 steps in the ImageNet stem and stages, three in the CIFAR one.
    const int64_t min_image_size = name == "resnet50" ? 32 : 8;
    if (options.image_size < min_image_size) {
      return Status::error(name + ": image_size " + std::to_string(options.image_size) +
                           " is below the minimum of " + std::to_string(min_image_size));
    }
    ResNetConfig config;
    config.in_channels = options.in_channels;
    config.num_classes = options.num_classes;
    if (name == "resnet50") {
      config.block = ResNetBlock::kBottleneck;
      config.blocks_per_stage = {3, 4, 6, 3};
      config.stem = ResNetStem::kImageNet;
    }
    model.module = torch::nn::AnyModule(ResNet(config));
  } else {
    std::string valid;
    for (const std::string& known : model_names()) valid += (valid.empty() ? "" : ", ") + known;
    return Status::error("unknown model '" + name + "'; valid: " + valid);
  }
  return model;
}

}  // namespace scalestudy::models
