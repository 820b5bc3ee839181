#include "workloads/ddpm/ddpm_task.hpp"

#include <algorithm>
#include <vector>

#include "harness/data/class_balanced_subset.hpp"
#include "harness/data/dataset_registry.hpp"
#include "harness/data/seed_mixing.hpp"
#include "harness/models/flop_counter.hpp"
#include "workloads/ddpm/ddpm_config.hpp"
#include "workloads/ddpm/seeded_generator.hpp"

namespace scalestudy::ddpm {
namespace {

namespace F = torch::nn::functional;

// --val-samples takes the same subset whatever the run's seed, so validation losses of a
// study's runs compare across seeds.
constexpr uint64_t kValidationSubsetSeed = 0;

// Pixels in [0, 255] map to [-1, 1], the range the noise schedule assumes.
const data::ChannelStats kToSymmetricRange{{0.5}, {0.5}};

// Bilinear resize of a uint8 split to side x side (align_corners false, as torchvision's
// Resize), in chunks so the float copy stays small. Done once at setup, back to uint8, so
// batches assemble (and may live on the device) like any image data set's.
data::ImageSplit resized(const data::ImageSplit& split, int64_t side) {
  if (split.images.size(2) == side && split.images.size(3) == side) return split;
  constexpr int64_t kChunk = 4096;
  std::vector<torch::Tensor> chunks;
  for (int64_t first = 0; first < split.size(); first += kChunk) {
    torch::Tensor chunk = split.images.narrow(0, first, std::min(kChunk, split.size() - first));
    chunks.push_back(
        F::interpolate(chunk.to(torch::kFloat), F::InterpolateFuncOptions()
                                                    .size(std::vector<int64_t>{side, side})
                                                    .mode(torch::kBilinear)
                                                    .align_corners(false))
            .round()
            .clamp(0, 255)
            .to(torch::kByte));
  }
  return data::ImageSplit{torch::cat(chunks, 0), split.labels};
}

uint64_t stream_seed(uint64_t seed, uint64_t stream, int rank) {
  return data::mix_seed(data::mix_seed(data::mix_seed(seed) + stream) +
                        static_cast<uint64_t>(rank));
}

// forward_cost_per_sample() drives one-input modules; the step does not change the cost.
class FixedStepUNetImpl : public torch::nn::Module {
 public:
  explicit FixedStepUNetImpl(UNet unet) : unet_(register_module("unet", std::move(unet))) {}
  torch::Tensor forward(const torch::Tensor& noisy) {
    return unet_(noisy, torch::zeros({noisy.size(0)}, noisy.options().dtype(torch::kLong)));
  }

 private:
  UNet unet_;
};
TORCH_MODULE(FixedStepUNet);

}  // namespace

void DdpmTask::declare_flags(train::Flags& flags) const {
  declare_ddpm_flags(flags);
}

Status DdpmTask::validate(const train::Flags& flags) const {
  // CUDA graphs replay only the default generators' random streams (LibTorch 1.13).
  if (auto graph = flags.get_bool("cuda-graph"); graph && *graph) {
    return Status::error(
        "--cuda-graph: the DDPM step draws its steps and noise from per-rank "
        "generators, which a CUDA graph cannot replay");
  }
  return resolve_ddpm_config(flags).status();
}

Status DdpmTask::setup(const train::TaskSetup& setup) {
  auto config = resolve_ddpm_config(setup.flags);
  if (!config) return config.status();
  where_ = data::RankInWorld{setup.rank_info.rank, setup.rank_info.world_size};
  seed_ = setup.seed;
  prefetch_depth_ = setup.prefetch_depth;
  device_ = setup.device;

  data::DatasetOptions dataset_options;
  dataset_options.name = config->dataset;
  dataset_options.root = config->data_root;
  const int64_t side = config->preset.image_size;
  dataset_options.synthetic.seed = seed_;
  dataset_options.synthetic.channels = 1;
  dataset_options.synthetic.height = dataset_options.synthetic.width = side;
  auto dataset = data::load_dataset(dataset_options);
  if (!dataset) return dataset.status();
  dataset->train =
      resized(data::class_balanced_subset(dataset->train, config->train_samples, seed_), side);
  dataset->test = resized(
      data::class_balanced_subset(dataset->test, config->val_samples, kValidationSubsetSeed), side);
  dataset_ = std::move(*dataset);

  unet_ = UNet(config->unet);
  schedule_.emplace(config->beta_schedule, config->timesteps, device_);
  train_generator_ = seeded_generator(device_, stream_seed(seed_, 0, where_.rank));
  return Status::ok();
}

Result<std::unique_ptr<data::BatchLoader>> DdpmTask::train_batches(int64_t epoch,
                                                                   int64_t global_batch,
                                                                   int64_t first_batch) {
  return data::BatchLoader::for_training(
      dataset_->train, kToSymmetricRange, where_,
      data::epoch_options(epoch, global_batch, first_batch, seed_, prefetch_depth_));
}

std::optional<train::ResidentData> DdpmTask::resident_training_data() const {
  return train::ResidentData{&dataset_->train, &kToSymmetricRange, data::AugmentOptions()};
}

Result<std::unique_ptr<data::BatchLoader>> DdpmTask::eval_batches(int64_t per_rank_batch) {
  eval_generator_ = seeded_generator(device_, stream_seed(seed_, 1, where_.rank));
  return data::BatchLoader::for_evaluation(dataset_->test, kToSymmetricRange, where_,
                                           per_rank_batch, prefetch_depth_);
}

train::TaskOutput DdpmTask::forward(const data::Batch& batch) {
  at::Generator& generator = unet_->is_training() ? *train_generator_ : *eval_generator_;
  const torch::Tensor& clean = batch.images;
  torch::Tensor timesteps = torch::randint(schedule_->timesteps(), {clean.size(0)}, generator,
                                           clean.options().dtype(torch::kLong));
  // empty_like keeps the batch's memory format (channels_last on the GPU path).
  torch::Tensor noise = torch::empty_like(clean).normal_(0, 1, generator);
  torch::Tensor predicted = unet_(schedule_->add_noise(clean, noise, timesteps), timesteps);
  // In float32 even when the forward pass runs under fp16 autocast.
  torch::Tensor loss = F::mse_loss(predicted.to(torch::kFloat), noise);
  return train::TaskOutput{loss, torch::Tensor()};
}

void DdpmTask::save_state(torch::serialize::OutputArchive& archive) const {
  at::Generator generator = *train_generator_;  // a handle on the same generator
  std::lock_guard<std::mutex> lock(generator.mutex());
  archive.write("train_generator", generator.get_state(), /*is_buffer=*/true);
}

void DdpmTask::load_state(torch::serialize::InputArchive& archive) {
  torch::Tensor saved;
  archive.read("train_generator", saved, /*is_buffer=*/true);
  std::lock_guard<std::mutex> lock(train_generator_->mutex());
  train_generator_->set_state(saved.cpu());
}

std::map<std::string, double> DdpmTask::summary() {
  std::map<std::string, double> values;
  torch::nn::AnyModule fixed_step{FixedStepUNet(unet_)};
  const int64_t side = unet_->config().image_size;
  auto cost =
      models::forward_cost_per_sample(fixed_step, {unet_->config().image_channels, side, side});
  if (cost) values["forward_flops"] = cost->flops();
  return values;
}

}  // namespace scalestudy::ddpm
