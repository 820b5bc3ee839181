// BatchLoader: the batches of one epoch on one rank, assembled by a background thread
// that runs up to `prefetch_depth` batches ahead of the training step (a bounded queue),
// so the time a step waits in next() is the honest data wait. With prefetch_depth 0,
// next() assembles synchronously on the caller's thread.
//
// Build one per epoch with for_training() (sharded by DistributedSampler rules, shuffled
// from (seed, epoch), augmented from (seed, epoch, rank, batch)) or for_evaluation()
// (every sample once across ranks; equal batch counts on every rank, with Batch::
// valid_count excluding padding).
//
// Thread-safety: next() must be called from one thread at a time (the training loop).
// The destructor stops and joins the worker; it may be called before the epoch ends.
// The worker only reads the split's tensors, so several loaders may share one split.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/data/batch_assembly.hpp"
#include "harness/data/distributed_sampler.hpp"
#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

inline constexpr int kDefaultPrefetchDepth = 2;

// The prefetch depth for a rank that computes on `compute_device`: none on the CPU. There the
// rank's intra-op threads own its cores, and a loader thread's ATen ops start an OpenMP team
// of their own; with more OpenMP threads than cores libgomp stops spin-waiting between
// parallel regions, so the compute team sleeps and wakes around each of a step's thousands
// of ops: ResNet-18 at batch 32 on 2 cores ran 8% slower with a prefetching loader than with
// its batches assembled on the training thread (docs/performance.md).
int prefetch_depth_for(const torch::Device& compute_device);

struct TrainEpochOptions {
  int64_t global_batch = 0;  // split evenly over the ranks; the epoch's tail is dropped
  uint64_t seed = 0;
  int64_t epoch = 0;  // 0-based; with seed, fixes the shuffle and the augmentation
  AugmentOptions augment;
  int prefetch_depth = kDefaultPrefetchDepth;
  // The first batch served (a resumed epoch); batch i is the same whatever the start.
  int64_t first_batch = 0;
};

// What a training task's train_batches() hands on: no augmentation.
inline TrainEpochOptions epoch_options(int64_t epoch, int64_t global_batch, int64_t first_batch,
                                       uint64_t seed, int prefetch_depth) {
  TrainEpochOptions options;
  options.prefetch_depth = prefetch_depth;
  options.global_batch = global_batch;
  options.seed = seed;
  options.epoch = epoch;
  options.first_batch = first_batch;
  return options;
}

class BatchLoader {
 public:
  static Result<std::unique_ptr<BatchLoader>> for_training(const ImageSplit& split,
                                                           const ChannelStats& stats,
                                                           RankInWorld where,
                                                           const TrainEpochOptions& options);
  // `per_rank_batch` samples per batch; the last batch may be smaller.
  static Result<std::unique_ptr<BatchLoader>> for_evaluation(
      const ImageSplit& split, const ChannelStats& stats, RankInWorld where, int64_t per_rank_batch,
      int prefetch_depth = kDefaultPrefetchDepth);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // The next batch of the epoch, or nullopt after the last. Blocks while the worker
  // assembles it. Rethrows an exception the worker hit.
  std::optional<Batch> next();
  int64_t num_batches() const { return static_cast<int64_t>(batch_starts_.size()); }

 private:
  struct Plan {
    std::vector<int64_t> indices;
    int64_t batch_size = 0;
    int64_t valid_count = 0;  // leading entries of `indices` that are real samples
    AugmentOptions augment;
    uint64_t seed = 0;
    int64_t epoch = 0;
    int rank = 0;
  };
  BatchLoader(const ImageSplit& split, const ChannelStats& stats, Plan plan, int prefetch_depth,
              int64_t first_batch = 0);
  Batch assemble(int64_t batch_index) const;
  void produce(int64_t first_batch);

  const ImageSplit split_;
  const ChannelStats stats_;
  const Plan plan_;
  std::vector<int64_t> batch_starts_;
  const size_t prefetch_depth_;

  int64_t next_to_consume_ = 0;  // synchronous mode and bookkeeping; consumer thread only
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;          // guarded by mutex_
  bool stopping_ = false;            // guarded by mutex_
  std::exception_ptr worker_error_;  // guarded by mutex_
  std::thread worker_;
};

}  // namespace scalestudy::data
