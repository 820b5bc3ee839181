// TrainingTask: the hooks a training workload supplies to the shared training loop — its
// flags, model, data and loss. The loop (TrainingWorkload) owns everything else: the
// device (the model and every batch are moved there), precision (forward() runs under
// autocast, fp16 gets loss scaling — see MixedPrecision), weight broadcast, optimizer and
// schedule, bucketed gradient all-reduce, phase timing, global metrics, the run record and
// the human output. Image classification (scalestudy-train) and the DDPM trainer are two
// such tasks.
// A task is used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/core/status.hpp"
#include "harness/data/batch_loader.hpp"
#include "harness/dist/rank_discovery.hpp"
#include "harness/gpu/precision.hpp"
#include "harness/train/flags.hpp"

namespace scalestudy::train {

struct TaskSetup {
  const Flags& flags;
  const dist::RankInfo& rank_info;
  uint64_t seed = 0;
  torch::Device device = torch::kCPU;  // the loop moves the module there after setup()
  // The forward pass's precision (the loop applies it) and the batches' memory format,
  // for a task that builds tensors of its own.
  gpu::Precision precision = gpu::Precision::kFp32;
  at::MemoryFormat memory_format = at::MemoryFormat::Contiguous;
  // What the task's BatchLoaders prefetch (data::prefetch_depth_for the device).
  int prefetch_depth = data::kDefaultPrefetchDepth;
};

// A task's training split in the form the loop can keep in device memory and assemble
// there (--data-on-device): batches exactly as data::assemble_batch makes them.
struct ResidentData {
  const data::ImageSplit* split = nullptr;
  const data::ChannelStats* stats = nullptr;
  data::AugmentOptions augment;
};

struct TaskOutput {
  torch::Tensor loss;     // scalar: mean over the batch's samples; differentiable in training
  torch::Tensor correct;  // scalar count of correct predictions; undefined: no accuracy
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;

  virtual void declare_flags(Flags& flags) const = 0;
  // Checks the task's flags before the rendezvous.
  virtual Status validate(const Flags& flags) const { return Status::ok(); }
  // Loads the data and builds the model (weights from the global torch seed; the loop
  // broadcasts rank 0's afterwards). Errors (missing files, bad headers) fail the run.
  virtual Status setup(const TaskSetup& setup) = 0;
  virtual torch::nn::Module& module() = 0;

  // This rank's batches of 0-based `epoch`, `global_batch` samples per step over all ranks,
  // from batch `first_batch` on (a run resumed mid-epoch; the batches are those an
  // uninterrupted epoch has at those positions).
  virtual Result<std::unique_ptr<data::BatchLoader>> train_batches(int64_t epoch,
                                                                   int64_t global_batch,
                                                                   int64_t first_batch) = 0;
  // The training split behind train_batches(), when its batches are plain assembled image
  // batches the loop may serve from device memory instead; nullopt: always
  // train_batches(). Called after setup().
  virtual std::optional<ResidentData> resident_training_data() const { return std::nullopt; }
  // This rank's shard of the validation split; nullptr when the task has none.
  virtual Result<std::unique_ptr<data::BatchLoader>> eval_batches(int64_t per_rank_batch) = 0;
  // Forward pass and loss of a batch (in evaluation, only its valid samples are passed).
  virtual TaskOutput forward(const data::Batch& batch) = 0;

  // Run-level numbers for the summary table ("forward_flops", ...); called after setup.
  virtual std::map<std::string, double> summary() { return {}; }
  // Tokens a sample predicts when samples are token sequences (a language model's
  // context), else 0; called after setup. The loop then reports tokens/s beside samples/s.
  virtual int64_t tokens_per_sample() const { return 0; }

  // State of the task's own beyond its module (random generators of its own) in a training
  // checkpoint; the loop saves the module, the optimizer and the default generators.
  virtual void save_state(torch::serialize::OutputArchive& archive) const {}
  virtual void load_state(torch::serialize::InputArchive& archive) {}
};

}  // namespace scalestudy::train
