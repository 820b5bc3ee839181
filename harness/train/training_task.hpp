// TrainingTask: the hooks a training workload supplies to the shared training loop — its
// flags, model, data and loss. The loop (TrainingWorkload) owns everything else: weight
// broadcast, optimizer and schedule, bucketed gradient all-reduce, phase timing, global
// metrics, the run record and the human output. Image classification (scalestudy-train)
// and the DDPM trainer are two such tasks.
// A task is used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "harness/core/status.hpp"
#include "harness/data/batch_loader.hpp"
#include "harness/dist/rank_discovery.hpp"
#include "harness/train/flags.hpp"

namespace scalestudy::train {

struct TaskSetup {
  const Flags& flags;
  const dist::RankInfo& rank_info;
  uint64_t seed = 0;
  torch::Device device = torch::kCPU;
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

  // This rank's batches of 0-based `epoch`, `global_batch` samples per step over all ranks.
  virtual Result<std::unique_ptr<data::BatchLoader>> train_batches(int64_t epoch,
                                                                   int64_t global_batch) = 0;
  // This rank's shard of the validation split; nullptr when the task has none.
  virtual Result<std::unique_ptr<data::BatchLoader>> eval_batches(int64_t per_rank_batch) = 0;
  // Forward pass and loss of a batch (in evaluation, only its valid samples are passed).
  virtual TaskOutput forward(const data::Batch& batch) = 0;

  // Run-level numbers for the summary table ("forward_flops", ...); called after setup.
  virtual std::map<std::string, double> summary() { return {}; }
};

}  // namespace scalestudy::train
