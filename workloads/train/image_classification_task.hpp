// ImageClassificationTask: the hooks of scalestudy-train — a classification model from
// harness/models, an image data set from harness/data (optionally a class-balanced subset
// of --train-samples / --val-samples), cross-entropy loss and top-1 accuracy.
// Used by the training thread only.
#pragma once

#include <optional>

#include "harness/data/dataset_registry.hpp"
#include "harness/models/model_registry.hpp"
#include "harness/train/training_task.hpp"

namespace scalestudy::workloads {

class ImageClassificationTask : public train::TrainingTask {
 public:
  void declare_flags(train::Flags& flags) const override;
  Status validate(const train::Flags& flags) const override;
  Status setup(const train::TaskSetup& setup) override;
  torch::nn::Module& module() override { return *model_->ptr(); }
  Result<std::unique_ptr<data::BatchLoader>> train_batches(int64_t epoch, int64_t global_batch,
                                                           int64_t first_batch) override;
  std::optional<train::ResidentData> resident_training_data() const override {
    return train::ResidentData{&dataset_->train, &dataset_->normalization, augment_};
  }
  Result<std::unique_ptr<data::BatchLoader>> eval_batches(int64_t per_rank_batch) override;
  train::TaskOutput forward(const data::Batch& batch) override;
  std::map<std::string, double> summary() override;

 private:
  data::RankInWorld where_;
  uint64_t seed_ = 0;
  int prefetch_depth_ = data::kDefaultPrefetchDepth;
  data::AugmentOptions augment_;
  std::optional<data::ImageDataset> dataset_;
  std::optional<models::Model> model_;
};

}  // namespace scalestudy::workloads
