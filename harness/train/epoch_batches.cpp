#include "harness/train/epoch_batches.hpp"

#include <algorithm>
#include <string>

namespace scalestudy::train {
namespace {

class HostBatches : public EpochBatches {
 public:
  HostBatches(std::unique_ptr<data::BatchLoader> loader, BatchPlacement placement)
      : loader_(std::move(loader)), placement_(placement) {}

  int64_t num_batches() const override { return loader_->num_batches(); }

  std::optional<data::Batch> next() override {
    std::optional<data::Batch> batch = loader_->next();
    if (!batch) return batch;
    batch->images = batch->images.to(placement_.device).contiguous(placement_.memory_format);
    batch->labels = batch->labels.to(placement_.device);
    return batch;
  }

 private:
  std::unique_ptr<data::BatchLoader> loader_;
  BatchPlacement placement_;
};

class DeviceBatches : public EpochBatches {
 public:
  DeviceBatches(gpu::DeviceBatchLoader& loader, int64_t epoch, int64_t first_batch)
      : loader_(loader), next_index_(std::min(first_batch, loader.batches_per_epoch())) {
    loader_.start_epoch(epoch);
  }

  int64_t num_batches() const override { return loader_.batches_per_epoch(); }

  std::optional<data::Batch> next() override {
    if (next_index_ == loader_.batches_per_epoch()) return std::nullopt;
    gpu::DeviceBatch batch = loader_.batch(next_index_);
    const int64_t samples = batch.labels.size(0);
    return data::Batch{std::move(batch.images), std::move(batch.labels), samples, next_index_++};
  }

 private:
  gpu::DeviceBatchLoader& loader_;
  int64_t next_index_;
};

}  // namespace

std::unique_ptr<EpochBatches> host_batches(std::unique_ptr<data::BatchLoader> loader,
                                           BatchPlacement placement) {
  return std::make_unique<HostBatches>(std::move(loader), placement);
}

std::unique_ptr<EpochBatches> device_batches(gpu::DeviceBatchLoader& loader, int64_t epoch,
                                             int64_t first_batch) {
  return std::make_unique<DeviceBatches>(loader, epoch, first_batch);
}

Result<DataPlacement> parse_data_placement(std::string_view text) {
  if (text == "auto") return DataPlacement::kAuto;
  if (text == "true") return DataPlacement::kDevice;
  if (text == "false") return DataPlacement::kHost;
  return Status::error("--data-on-device: '" + std::string(text) +
                       "' is not one of auto, true, false");
}

Result<bool> keep_split_on_device(DataPlacement placement, const std::optional<ResidentData>& data,
                                  const torch::Device& device, int64_t device_memory_bytes) {
  if (placement == DataPlacement::kHost) return false;
  if (placement == DataPlacement::kDevice) {
    if (!data) return Status::error("--data-on-device true: this task has no device-resident data");
    return true;
  }
  if (!data || !device.is_cuda()) return false;
  const torch::Tensor& images = data->split->images;  // uint8 [N, C, H, W]
  const int64_t padding = data->augment.crop_padding;
  const int64_t padded_bytes = images.size(0) * images.size(1) * (images.size(2) + 2 * padding) *
                               (images.size(3) + 2 * padding);
  return padded_bytes <= device_memory_bytes / 4;
}

}  // namespace scalestudy::train
