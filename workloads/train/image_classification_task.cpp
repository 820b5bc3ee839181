#include "workloads/train/image_classification_task.hpp"

#include "harness/data/class_balanced_subset.hpp"
#include "harness/models/flop_counter.hpp"

namespace scalestudy::workloads {
namespace {

// --val-samples takes the same subset whatever the run's seed, so the validation accuracies
// of a study's runs compare across seeds.
constexpr uint64_t kValidationSubsetSeed = 0;

bool is_character_data(const std::string& name) {
  return name == "mnist" || name.rfind("emnist", 0) == 0;
}

}  // namespace

void ImageClassificationTask::declare_flags(train::Flags& flags) const {
  flags.declare("model", "small-cnn", "small-cnn | resnet18 | resnet50")
      .one_of({"small-cnn", "resnet18", "resnet50"});
  flags.declare(
      "dataset", "synthetic",
      "fashion-mnist | mnist | emnist-<split> | cifar10 | imagefolder | tinyimagenet | synthetic");
  train::declare_data_source_flags(flags);
  flags
      .declare("image-size", "64",
               "imagefolder, tinyimagenet: side of the packed images (px); synthetic: side of "
               "its images (default 32, CIFAR's)")
      .integer(1);
  flags.declare("pack-dir", "",
                "imagefolder, tinyimagenet: folder of the pack cache; default "
                "<data root>/.scalestudy-pack");
  flags.declare("augment", "false", "random crop (pad 4) and horizontal flip (not for digits)")
      .boolean();
}

Status ImageClassificationTask::validate(const train::Flags& flags) const {
  for (const char* name : {"train-samples", "val-samples"}) {
    auto value = flags.get_int(name);
    if (!value) return value.status();
    if (*value < 0) return Status::error(std::string("--") + name + " must be >= 0");
  }
  auto image_size = flags.get_int("image-size");
  if (!image_size) return image_size.status();
  if (*image_size <= 0) return Status::error("--image-size must be > 0");
  const std::string& dataset = flags.get("dataset");
  if (flags.was_set("image-size") && !data::is_image_folder_dataset(dataset) &&
      dataset != "synthetic") {
    return Status::error(
        "--image-size applies to imagefolder, tinyimagenet and synthetic only, not to "
        "--dataset " +
        dataset);
  }
  if (flags.was_set("pack-dir") && !data::is_image_folder_dataset(dataset)) {
    return Status::error(
        "--pack-dir applies to imagefolder and tinyimagenet only, not to "
        "--dataset " +
        dataset);
  }
  if (auto augment = flags.get_bool("augment"); !augment) return augment.status();
  return Status::ok();
}

Status ImageClassificationTask::setup(const train::TaskSetup& setup) {
  const train::Flags& flags = setup.flags;
  where_ = data::RankInWorld{setup.rank_info.rank, setup.rank_info.world_size};
  seed_ = setup.seed;
  prefetch_depth_ = setup.prefetch_depth;
  data::DatasetOptions dataset_options;
  dataset_options.name = flags.get("dataset");
  dataset_options.root = flags.get("data-root");
  dataset_options.synthetic.seed = setup.seed;
  if (flags.was_set("image-size")) {
    dataset_options.synthetic.height = dataset_options.synthetic.width =
        *flags.get_int("image-size");
  }
  dataset_options.image_folder.image_size = *flags.get_int("image-size");
  dataset_options.image_folder.cache_dir = flags.get("pack-dir");
  auto dataset = data::load_dataset(dataset_options);
  if (!dataset) return dataset.status();
  dataset->train =
      data::class_balanced_subset(dataset->train, *flags.get_int("train-samples"), setup.seed);
  dataset->test = data::class_balanced_subset(dataset->test, *flags.get_int("val-samples"),
                                              kValidationSubsetSeed);
  dataset_ = std::move(*dataset);
  if (*flags.get_bool("augment")) {
    augment_.crop_padding = 4;
    augment_.horizontal_flip = !is_character_data(dataset_->name);
  }
  models::ModelOptions model_options;
  model_options.num_classes = dataset_->num_classes;
  model_options.in_channels = dataset_->channels();
  model_options.image_size = dataset_->height();
  auto model = models::make_model(flags.get("model"), model_options);
  if (!model) return model.status();
  model_ = std::move(*model);
  return Status::ok();
}

Result<std::unique_ptr<data::BatchLoader>> ImageClassificationTask::train_batches(
    int64_t epoch, int64_t global_batch, int64_t first_batch) {
  data::TrainEpochOptions options =
      data::epoch_options(epoch, global_batch, first_batch, seed_, prefetch_depth_);
  options.augment = augment_;
  return data::BatchLoader::for_training(dataset_->train, dataset_->normalization, where_, options);
}

Result<std::unique_ptr<data::BatchLoader>> ImageClassificationTask::eval_batches(
    int64_t per_rank_batch) {
  return data::BatchLoader::for_evaluation(dataset_->test, dataset_->normalization, where_,
                                           per_rank_batch, prefetch_depth_);
}

train::TaskOutput ImageClassificationTask::forward(const data::Batch& batch) {
  torch::Tensor logits = model_->forward(batch.images);
  torch::Tensor loss = torch::nn::functional::cross_entropy(logits, batch.labels);
  torch::Tensor correct = logits.argmax(1).eq(batch.labels).sum();
  return train::TaskOutput{loss, correct};
}

std::map<std::string, double> ImageClassificationTask::summary() {
  std::map<std::string, double> values;
  auto cost = models::forward_cost_per_sample(
      model_->module, {dataset_->channels(), dataset_->height(), dataset_->width()});
  if (cost) values["forward_flops"] = cost->flops();
  return values;
}

}  // namespace scalestudy::workloads
