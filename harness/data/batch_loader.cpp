#include "harness/data/batch_loader.hpp"

#include <algorithm>
#include <string>

namespace scalestudy::data {
namespace {

Status validate_stats(const ImageSplit& split, const ChannelStats& stats) {
  const size_t channels = static_cast<size_t>(split.images.size(1));
  if (stats.mean.size() != channels || stats.stddev.size() != channels) {
    return Status::error("normalisation has " + std::to_string(stats.mean.size()) + " means and " +
                         std::to_string(stats.stddev.size()) + " standard deviations for " +
                         std::to_string(channels) + " channels");
  }
  for (double stddev : stats.stddev) {
    if (!(stddev > 0)) return Status::error("normalisation standard deviation must be > 0");
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<BatchLoader>> BatchLoader::for_training(const ImageSplit& split,
                                                               const ChannelStats& stats,
                                                               RankInWorld where,
                                                               const TrainEpochOptions& options) {
  Status stats_ok = validate_stats(split, stats);
  if (!stats_ok) return stats_ok;
  Result<TrainShard> shard =
      train_shard(split.size(), options.global_batch, where, options.seed, options.epoch);
  if (!shard) return shard.status();
  const int64_t valid_count = static_cast<int64_t>(shard->indices.size());
  Plan plan{std::move(shard->indices),
            shard->per_rank_batch,
            valid_count,
            options.augment,
            options.seed,
            options.epoch,
            where.rank};
  if (options.first_batch < 0) {
    return Status::error("first batch must be >= 0, got " + std::to_string(options.first_batch));
  }
  return std::unique_ptr<BatchLoader>(
      new BatchLoader(split, stats, std::move(plan), options.prefetch_depth, options.first_batch));
}

int prefetch_depth_for(const torch::Device& compute_device) {
  return compute_device.is_cpu() ? 0 : kDefaultPrefetchDepth;
}

Result<std::unique_ptr<BatchLoader>> BatchLoader::for_evaluation(const ImageSplit& split,
                                                                 const ChannelStats& stats,
                                                                 RankInWorld where,
                                                                 int64_t per_rank_batch,
                                                                 int prefetch_depth) {
  Status stats_ok = validate_stats(split, stats);
  if (!stats_ok) return stats_ok;
  Status rank_ok = validate_rank(where);
  if (!rank_ok) return rank_ok;
  if (per_rank_batch <= 0) {
    return Status::error("evaluation batch must be positive, got " +
                         std::to_string(per_rank_batch));
  }
  EvalShard shard = eval_shard(split.size(), where);
  Plan plan{std::move(shard.indices),
            per_rank_batch,
            shard.valid_count,
            AugmentOptions{},
            0,
            0,
            where.rank};
  return std::unique_ptr<BatchLoader>(
      new BatchLoader(split, stats, std::move(plan), prefetch_depth));
}

BatchLoader::BatchLoader(const ImageSplit& split, const ChannelStats& stats, Plan plan,
                         int prefetch_depth, int64_t first_batch)
    : split_(split),
      stats_(stats),
      plan_(std::move(plan)),
      prefetch_depth_(static_cast<size_t>(std::max(prefetch_depth, 0))) {
  for (int64_t start = 0; start < static_cast<int64_t>(plan_.indices.size());
       start += plan_.batch_size) {
    batch_starts_.push_back(start);
  }
  next_to_consume_ = std::min(first_batch, num_batches());
  if (prefetch_depth_ > 0 && next_to_consume_ < num_batches()) {
    worker_ = std::thread([this, first = next_to_consume_] { produce(first); });
  }
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

Batch BatchLoader::assemble(int64_t batch_index) const {
  const int64_t start = batch_starts_[static_cast<size_t>(batch_index)];
  const int64_t size =
      std::min(plan_.batch_size, static_cast<int64_t>(plan_.indices.size()) - start);
  const torch::Tensor indices =
      torch::from_blob(const_cast<int64_t*>(plan_.indices.data()) + start, {size}, torch::kLong)
          .clone();
  Batch batch = assemble_batch(split_, indices, stats_, plan_.augment,
                               augmentation_seed(plan_.seed, plan_.epoch, plan_.rank, batch_index));
  batch.valid_count = std::clamp<int64_t>(plan_.valid_count - start, 0, size);
  batch.index = batch_index;
  return batch;
}

void BatchLoader::produce(int64_t first_batch) {
  torch::NoGradGuard no_grad;
  try {
    for (int64_t batch_index = first_batch; batch_index < num_batches(); ++batch_index) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return stopping_ || ready_.size() < prefetch_depth_; });
        if (stopping_) return;
      }
      Batch batch = assemble(batch_index);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_.push_back(std::move(batch));
      }
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    worker_error_ = std::current_exception();
    changed_.notify_all();
  }
}

std::optional<Batch> BatchLoader::next() {
  if (next_to_consume_ >= num_batches()) return std::nullopt;
  if (prefetch_depth_ == 0) return assemble(next_to_consume_++);
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !ready_.empty() || worker_error_ != nullptr; });
  if (ready_.empty()) std::rethrow_exception(worker_error_);
  Batch batch = std::move(ready_.front());
  ready_.pop_front();
  ++next_to_consume_;
  lock.unlock();
  changed_.notify_all();
  return batch;
}

}  // namespace scalestudy::data
