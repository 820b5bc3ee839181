// Which samples each rank visits, with torch.utils.data.DistributedSampler semantics:
// every rank computes the same permutation of the data set for an epoch (from seed and
// epoch only, with a portable generator, so ranks agree without talking), then takes the
// positions rank, rank + world, rank + 2 world, ...
//
// Training splits the permutation by a BatchGeometry (batch_geometry.hpp): the tail that
// would not fill a whole global batch is dropped, and global batch k is exactly
// permutation positions [k * global_batch, (k + 1) * global_batch) whatever the world size.
// Evaluation visits every sample exactly once across ranks: the shards are padded to equal
// length (so ranks run the same number of batches) and each shard says how many of its
// leading entries are real; padding is always at a shard's end.
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/data/batch_geometry.hpp"

namespace scalestudy::data {

// A permutation of [0, size) determined by (seed, epoch) alone; identical on every
// platform (own Fisher-Yates over std::mt19937_64, no implementation-defined distribution).
std::vector<int64_t> epoch_permutation(int64_t size, uint64_t seed, int64_t epoch);

struct TrainShard {
  std::vector<int64_t> indices;  // steps_per_epoch * per_rank_batch sample indices, in order
  int64_t per_rank_batch = 0;
  int64_t steps_per_epoch = 0;
};

// The BatchGeometry::create errors (bad rank, global_batch not a positive multiple of
// world_size or larger than the data). `shuffle` false keeps the natural order (for tests
// and debugging).
Result<TrainShard> train_shard(int64_t dataset_size, int64_t global_batch, RankInWorld where,
                               uint64_t seed, int64_t epoch, bool shuffle = true);

struct EvalShard {
  std::vector<int64_t> indices;  // ceil(dataset_size / world_size) entries on every rank
  int64_t valid_count = 0;       // the leading entries that are real samples
};

EvalShard eval_shard(int64_t dataset_size, RankInWorld where);

}  // namespace scalestudy::data
