#include "harness/data/synthetic_dataset.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::data {
namespace {

ImageSplit make_split(const torch::Tensor& templates, int64_t size, double noise_stddev_pixels,
                      at::Generator& generator) {
  const int64_t num_classes = templates.size(0);
  torch::Tensor labels = torch::randint(num_classes, {size}, generator, torch::kLong);
  torch::Tensor noise = torch::randn(
      {size, templates.size(1), templates.size(2), templates.size(3)}, generator, torch::kFloat);
  torch::Tensor images =
      (templates.index_select(0, labels) + noise.mul_(noise_stddev_pixels)).clamp_(0, 255).round_();
  return ImageSplit{images.to(torch::kUInt8).contiguous(), labels};
}

}  // namespace

Result<ImageDataset> make_synthetic_dataset(const SyntheticOptions& options) {
  if (options.train_size <= 0 || options.test_size <= 0 || options.num_classes < 2 ||
      options.channels <= 0 || options.height <= 0 || options.width <= 0 ||
      options.noise_stddev_pixels < 0) {
    return Status::error(
        "synthetic data set: sizes, channels, height and width must be positive, num_classes "
        ">= 2 and noise_stddev_pixels >= 0");
  }
  at::Generator generator = compat::make_cpu_generator(options.seed);
  // Templates in the middle of the pixel range keep noisy samples mostly unclipped.
  const torch::Tensor templates =
      torch::rand({options.num_classes, options.channels, options.height, options.width}, generator,
                  torch::kFloat)
          .mul_(128)
          .add_(64);
  ImageDataset dataset;
  dataset.name = "synthetic";
  dataset.num_classes = options.num_classes;
  dataset.train = make_split(templates, options.train_size, options.noise_stddev_pixels, generator);
  dataset.test = make_split(templates, options.test_size, options.noise_stddev_pixels, generator);
  dataset.normalization = compute_channel_stats(dataset.train);
  return dataset;
}

}  // namespace scalestudy::data
