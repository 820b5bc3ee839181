#include "workloads/ddpm/ancestral_sampler.hpp"

#include <algorithm>

namespace scalestudy::ddpm {

torch::Tensor sample_images(UNet& unet, const NoiseSchedule& schedule, int64_t count, int64_t chunk,
                            at::Generator& generator) {
  torch::NoGradGuard no_grad;
  const bool was_training = unet->is_training();
  unet->eval();
  const UNetConfig& config = unet->config();
  auto options = torch::TensorOptions().device(unet->parameters().front().device());
  std::vector<torch::Tensor> chunks;
  for (int64_t first = 0; first < count; first += chunk) {
    const int64_t size = std::min(chunk, count - first);
    std::vector<int64_t> shape = {size, config.image_channels, config.image_size,
                                  config.image_size};
    torch::Tensor images = torch::randn(shape, generator, options);
    for (int64_t t = schedule.timesteps() - 1; t >= 0; --t) {
      torch::Tensor timesteps = torch::full({size}, t, options.dtype(torch::kLong));
      torch::Tensor predicted = unet->forward(images, timesteps).to(torch::kFloat);
      torch::Tensor fresh = t > 0 ? torch::randn(shape, generator, options) : torch::Tensor();
      images = schedule.reverse_step(images, predicted, t, fresh);
    }
    chunks.push_back(images);
  }
  unet->train(was_training);
  return torch::cat(chunks, 0);
}

}  // namespace scalestudy::ddpm
