// DdpmTask: the hooks of scalestudy-ddpm for the shared training loop — an IDX (MNIST
// family) data set resized to the preset's side and scaled to [-1, 1], the UNet, and the
// DDPM objective: per sample a uniform step t and Gaussian noise, loss = MSE between the
// noise and the UNet's prediction of it from x_t (Ho et al. 2020, the "simple" loss).
// Validation is the same loss on the test split with t and noise drawn afresh from the
// same seed every pass, so epochs compare like for like; there is no accuracy.
// Each rank draws t and noise from its own generator, seeded from (seed, rank).
// Used by the training thread only.
#pragma once

#include <optional>

#include "harness/data/distributed_sampler.hpp"
#include "harness/data/image_dataset.hpp"
#include "harness/train/training_task.hpp"
#include "workloads/ddpm/noise_schedule.hpp"
#include "workloads/ddpm/unet.hpp"

namespace scalestudy::ddpm {

class DdpmTask : public train::TrainingTask {
 public:
  void declare_flags(train::Flags& flags) const override;
  Status validate(const train::Flags& flags) const override;
  Status setup(const train::TaskSetup& setup) override;
  torch::nn::Module& module() override { return *unet_; }
  Result<std::unique_ptr<data::BatchLoader>> train_batches(int64_t epoch, int64_t global_batch,
                                                           int64_t first_batch) override;
  std::optional<train::ResidentData> resident_training_data() const override;
  Result<std::unique_ptr<data::BatchLoader>> eval_batches(int64_t per_rank_batch) override;
  train::TaskOutput forward(const data::Batch& batch) override;
  std::map<std::string, double> summary() override;
  // The per-rank generator of the training steps' timesteps and noise.
  void save_state(torch::serialize::OutputArchive& archive) const override;
  void load_state(torch::serialize::InputArchive& archive) override;

 private:
  data::RankInWorld where_;
  uint64_t seed_ = 0;
  int prefetch_depth_ = data::kDefaultPrefetchDepth;
  torch::Device device_ = torch::kCPU;
  std::optional<data::ImageDataset> dataset_;
  UNet unet_{nullptr};
  std::optional<NoiseSchedule> schedule_;
  std::optional<at::Generator> train_generator_;
  std::optional<at::Generator> eval_generator_;
};

}  // namespace scalestudy::ddpm
