// LmTask: the hooks of scalestudy-lm for the shared training loop — windows of a token
// corpus (token_corpus.hpp), the GPT, and next-token prediction: loss = cross-entropy of
// the logits at every position against the following token, mean over the batch's tokens
// (in float32 even under autocast), from the full logits or, with --fused-head, chunk by
// chunk (fused_head_loss.hpp). Validation is the same loss over the validation
// windows; there is no accuracy. A sample is seq_len tokens (tokens_per_sample: the loop
// records tokens/s). Summary figures: the FLOP rule's train_flops_per_sample
// (gpt_config.hpp) beside the counted forward_flops, and the shape. Used by the training
// thread only.
#pragma once

#include <optional>

#include "harness/data/distributed_sampler.hpp"
#include "harness/data/image_dataset.hpp"
#include "harness/train/training_task.hpp"
#include "workloads/lm/gpt.hpp"
#include "workloads/lm/lm_config.hpp"

namespace scalestudy::lm {

class LmTask : public train::TrainingTask {
 public:
  void declare_flags(train::Flags& flags) const override { declare_lm_flags(flags); }
  Status validate(const train::Flags& flags) const override;
  Status setup(const train::TaskSetup& setup) override;
  torch::nn::Module& module() override { return *gpt_; }
  Result<std::unique_ptr<data::BatchLoader>> train_batches(int64_t epoch, int64_t global_batch,
                                                           int64_t first_batch) override;
  std::optional<train::ResidentData> resident_training_data() const override;
  Result<std::unique_ptr<data::BatchLoader>> eval_batches(int64_t per_rank_batch) override;
  train::TaskOutput forward(const data::Batch& batch) override;
  std::map<std::string, double> summary() override;
  int64_t tokens_per_sample() const override { return config_.model.seq_len; }

 private:
  const data::ChannelStats& stats() const;

  data::RankInWorld where_;
  uint64_t seed_ = 0;
  int prefetch_depth_ = data::kDefaultPrefetchDepth;
  LmConfig config_;
  data::ImageSplit train_windows_, validation_windows_;
  int64_t corpus_files_ = 0;
  Gpt gpt_{nullptr};
};

}  // namespace scalestudy::lm
