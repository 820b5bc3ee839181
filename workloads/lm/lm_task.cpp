#include "workloads/lm/lm_task.hpp"

#include "harness/models/flop_counter.hpp"
#include "workloads/lm/token_corpus.hpp"

namespace scalestudy::lm {
namespace {

namespace F = torch::nn::functional;

// The synthetic streams' seed is the run's, so every rank draws the same corpus.
Result<TokenStreams> load_tokens(const LmConfig& config, uint64_t seed) {
  if (config.byte_tokens()) return load_byte_corpus(config.dataset, config.data_root);
  const int64_t window = config.model.seq_len;
  const int64_t train = config.train_samples > 0 ? config.train_samples : kSyntheticTrainWindows;
  const int64_t val = config.val_samples > 0 ? config.val_samples : kSyntheticValWindows;
  return synthetic_tokens(config.model.vocab, train * window + 1, val * window + 1, seed);
}

}  // namespace

Status LmTask::validate(const train::Flags& flags) const {
  return resolve_lm_config(flags).status();
}

Status LmTask::setup(const train::TaskSetup& setup) {
  auto config = resolve_lm_config(setup.flags);
  if (!config) return config.status();
  config_ = std::move(*config);
  where_ = data::RankInWorld{setup.rank_info.rank, setup.rank_info.world_size};
  seed_ = setup.seed;
  prefetch_depth_ = setup.prefetch_depth;
  auto tokens = load_tokens(config_, seed_);
  if (!tokens) return tokens.status();
  const GptConfig& model = config_.model;
  train_windows_ = token_windows(tokens->train, model.seq_len, model.vocab, config_.train_samples);
  validation_windows_ =
      token_windows(tokens->validation, model.seq_len, model.vocab, config_.val_samples);
  corpus_files_ = tokens->files;
  for (const auto& [split, windows] :
       {std::pair<const char*, const data::ImageSplit*>{"training", &train_windows_},
        {"validation", &validation_windows_}}) {
    if (windows->size() == 0) {
      return Status::error("--seq-len " + std::to_string(model.seq_len) + ": the " + split +
                           " split of --dataset " + config_.dataset + " (" +
                           (config_.data_root.empty() ? kFortunesRoot : config_.data_root) +
                           ") has no window of seq_len + 1 tokens");
    }
  }
  gpt_ = Gpt(model);
  return Status::ok();
}

const data::ChannelStats& LmTask::stats() const {
  return token_plane_stats(train_windows_.images.size(1));
}

Result<std::unique_ptr<data::BatchLoader>> LmTask::train_batches(int64_t epoch,
                                                                 int64_t global_batch,
                                                                 int64_t first_batch) {
  return data::BatchLoader::for_training(
      train_windows_, stats(), where_,
      data::epoch_options(epoch, global_batch, first_batch, seed_, prefetch_depth_));
}

std::optional<train::ResidentData> LmTask::resident_training_data() const {
  return train::ResidentData{&train_windows_, &stats(), data::AugmentOptions()};
}

Result<std::unique_ptr<data::BatchLoader>> LmTask::eval_batches(int64_t per_rank_batch) {
  return data::BatchLoader::for_evaluation(validation_windows_, stats(), where_, per_rank_batch,
                                           prefetch_depth_);
}

train::TaskOutput LmTask::forward(const data::Batch& batch) {
  torch::Tensor tokens = window_tokens(batch.images);
  const int64_t length = tokens.size(1) - 1;
  torch::Tensor targets = tokens.narrow(1, 1, length).reshape({-1});
  if (config_.fused_head) {
    torch::Tensor hidden = gpt_->hidden(tokens.narrow(1, 0, length));
    hidden = hidden.reshape({-1, hidden.size(-1)});
    torch::Tensor loss = fused_head_cross_entropy(
        hidden, gpt_->head_weight(), targets, config_.head_chunk_rows, head_compute_dtype(hidden));
    return train::TaskOutput{loss, torch::Tensor()};
  }
  torch::Tensor logits = gpt_(tokens.narrow(1, 0, length));
  // Straight to float32 log-probabilities: one kernel from fp16 logits; from bf16 a cast, then
  // the float kernel (PyTorch fuses the conversion for fp16 only).
  torch::Tensor log_probs =
      torch::log_softmax(logits.view({-1, logits.size(-1)}), /*dim=*/-1, torch::kFloat);
  torch::Tensor loss = F::nll_loss(log_probs, targets);
  return train::TaskOutput{loss, torch::Tensor()};
}

std::map<std::string, double> LmTask::summary() {
  const GptConfig& model = config_.model;
  int64_t parameters = 0;
  for (const torch::Tensor& parameter : gpt_->parameters()) parameters += parameter.numel();
  std::map<std::string, double> values = {
      {"train_flops_per_sample",
       training_flops_per_token(model, parameters) * static_cast<double>(model.seq_len)},
      {"n_layer", static_cast<double>(model.n_layer)},
      {"d_model", static_cast<double>(model.d_model)},
      {"n_head", static_cast<double>(model.n_head)},
      {"vocab", static_cast<double>(model.vocab)},
      {"train_windows", static_cast<double>(train_windows_.size())},
  };
  if (corpus_files_ > 0) values["corpus_files"] = static_cast<double>(corpus_files_);
  torch::nn::AnyModule any(gpt_);
  torch::Tensor sample = torch::zeros({1, model.seq_len}, torch::kLong);
  if (auto cost = models::forward_cost_of(any, sample)) values["forward_flops"] = cost->flops();
  return values;
}

}  // namespace scalestudy::lm
