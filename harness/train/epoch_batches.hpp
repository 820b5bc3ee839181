// EpochBatches: one epoch's batches as the training loop consumes them — on the run's
// device, in its memory format. Two sources behind one interface: a task's BatchLoader
// (assembled on the host by its prefetch thread, each batch then copied to the device) and
// a gpu::DeviceBatchLoader (the training split resident in device memory, batches
// gathered, augmented and normalised by kernels there: no host work, no copy).
// keep_split_on_device() decides between them (--data-on-device).
// Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "harness/core/status.hpp"
#include "harness/data/batch_loader.hpp"
#include "harness/gpu/device_loader.hpp"
#include "harness/train/training_task.hpp"

namespace scalestudy::train {

class EpochBatches {
 public:
  virtual ~EpochBatches() = default;
  virtual int64_t num_batches() const = 0;
  // The next batch, or nullopt after the last.
  virtual std::optional<data::Batch> next() = 0;
};

struct BatchPlacement {
  torch::Device device = torch::kCPU;
  at::MemoryFormat memory_format = at::MemoryFormat::Contiguous;
};

std::unique_ptr<EpochBatches> host_batches(std::unique_ptr<data::BatchLoader> loader,
                                           BatchPlacement placement);
// Starts 0-based `epoch` on `loader`, which must outlive the result, at batch `first_batch`
// (a resumed epoch).
std::unique_ptr<EpochBatches> device_batches(gpu::DeviceBatchLoader& loader, int64_t epoch,
                                             int64_t first_batch);

// --data-on-device: "auto" | "true" | "false".
enum class DataPlacement { kAuto, kDevice, kHost };
Result<DataPlacement> parse_data_placement(std::string_view text);

// Whether the training split goes to device memory: always for kDevice (an error when the
// task offers no resident data), never for kHost, and for kAuto when the device is a GPU
// and the split, uint8 and padded for cropping, takes at most a quarter of its
// `device_memory_bytes` (room for the model, activations and the allocator's cache).
Result<bool> keep_split_on_device(DataPlacement placement, const std::optional<ResidentData>& data,
                                  const torch::Device& device, int64_t device_memory_bytes);

}  // namespace scalestudy::train
