// BatchGeometry: the shape of one training epoch over the ranks — world size, this rank,
// the global batch, its per-rank share and the steps of an epoch — derived and checked in
// one place, so the host sampler (train_shard) and the device-resident loader split the
// data the same way and neither divides or validates on its own.
//
// The epoch's tail that would not fill a whole global batch is dropped (torch's
// drop_last): every rank runs steps_per_epoch() full per-rank batches, and global batch k
// is permutation positions [k * global_batch, (k + 1) * global_batch) whatever the world
// size. Value type; thread-safe to read.
#pragma once

#include <cstdint>

#include "harness/core/status.hpp"

namespace scalestudy::data {

struct RankInWorld {
  int rank = 0;
  int world_size = 1;
};

// Errors unless 0 <= rank < world_size.
Status validate_rank(RankInWorld where);

class BatchGeometry {
 public:
  // Errors when `where` is not a rank of its world, or `global_batch` is not a positive
  // multiple of the world size or exceeds the `dataset_size` samples.
  static Result<BatchGeometry> create(int64_t dataset_size, int64_t global_batch,
                                      RankInWorld where);

  RankInWorld where() const { return where_; }
  int64_t global_batch() const { return global_batch_; }
  int64_t per_rank_batch() const { return global_batch_ / where_.world_size; }
  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  // The samples of an epoch the steps use: the data set less its dropped tail.
  int64_t samples_per_epoch() const { return steps_per_epoch_ * global_batch_; }

 private:
  BatchGeometry(RankInWorld where, int64_t global_batch, int64_t steps_per_epoch)
      : where_(where), global_batch_(global_batch), steps_per_epoch_(steps_per_epoch) {}

  RankInWorld where_;
  int64_t global_batch_;
  int64_t steps_per_epoch_;
};

}  // namespace scalestudy::data
