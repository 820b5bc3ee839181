// BatchGeometry: the training epoch's split over the ranks, checked once (see the header).
#include "harness/data/batch_geometry.hpp"

#include <string>

namespace scalestudy::data {

Status validate_rank(RankInWorld where) {
  if (where.world_size < 1 || where.rank < 0 || where.rank >= where.world_size) {
    return Status::error("rank " + std::to_string(where.rank) + " is not in a world of " +
                         std::to_string(where.world_size));
  }
  return Status::ok();
}

Result<BatchGeometry> BatchGeometry::create(int64_t dataset_size, int64_t global_batch,
                                            RankInWorld where) {
  if (Status rank_ok = validate_rank(where); !rank_ok) return rank_ok;
  // The fault first, then the rule, for the sampler's and the device loader's callers alike.
  const std::string rule = " (a global batch must be a positive multiple of the world size " +
                           std::to_string(where.world_size) + " and at most the " +
                           std::to_string(dataset_size) + " training samples)";
  if (global_batch <= 0 || global_batch % where.world_size != 0) {
    return Status::error("global_batch " + std::to_string(global_batch) +
                         " is not a positive multiple of world_size " +
                         std::to_string(where.world_size) + rule);
  }
  if (global_batch > dataset_size) {
    return Status::error("global_batch " + std::to_string(global_batch) +
                         " exceeds the data set's " + std::to_string(dataset_size) + " samples" +
                         rule);
  }
  return BatchGeometry(where, global_batch, dataset_size / global_batch);
}

}  // namespace scalestudy::data
