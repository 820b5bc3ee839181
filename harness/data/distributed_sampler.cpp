#include "harness/data/distributed_sampler.hpp"

#include <numeric>
#include <random>
#include <string>

#include "harness/data/seed_mixing.hpp"

namespace scalestudy::data {
namespace {

// Uniform in [0, bound) by rejection sampling: the same stream of engine
// outputs gives the same values everywhere, unlike std::uniform_int_distribution.
uint64_t uniform_below(std::mt19937_64& engine, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t draw = engine();
  while (draw >= limit) draw = engine();
  return draw % bound;
}

}  // namespace

Status validate_rank(RankInWorld where) {
  if (where.world_size < 1 || where.rank < 0 || where.rank >= where.world_size) {
    return Status::error("rank " + std::to_string(where.rank) + " is not in a world of " +
                         std::to_string(where.world_size));
  }
  return Status::ok();
}

std::vector<int64_t> epoch_permutation(int64_t size, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> permutation(static_cast<size_t>(size));
  std::iota(permutation.begin(), permutation.end(), int64_t{0});
  std::mt19937_64 engine(mix_seed(seed ^ mix_seed(static_cast<uint64_t>(epoch))));
  for (int64_t i = size - 1; i > 0; --i) {
    std::swap(permutation[i], permutation[uniform_below(engine, static_cast<uint64_t>(i) + 1)]);
  }
  return permutation;
}

Result<TrainShard> train_shard(int64_t dataset_size, int64_t global_batch, RankInWorld where,
                               uint64_t seed, int64_t epoch, bool shuffle) {
  Status rank_ok = validate_rank(where);
  if (!rank_ok) return rank_ok;
  if (global_batch <= 0 || global_batch % where.world_size != 0) {
    return Status::error("global_batch " + std::to_string(global_batch) +
                         " is not a positive multiple of world_size " +
                         std::to_string(where.world_size));
  }
  if (global_batch > dataset_size) {
    return Status::error("global_batch " + std::to_string(global_batch) +
                         " exceeds the data set's " + std::to_string(dataset_size) + " samples");
  }
  std::vector<int64_t> order(static_cast<size_t>(dataset_size));
  if (shuffle) {
    order = epoch_permutation(dataset_size, seed, epoch);
  } else {
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  TrainShard shard;
  shard.per_rank_batch = global_batch / where.world_size;
  shard.steps_per_epoch = dataset_size / global_batch;
  const int64_t used = shard.steps_per_epoch * global_batch;
  shard.indices.reserve(static_cast<size_t>(used / where.world_size));
  for (int64_t position = where.rank; position < used; position += where.world_size) {
    shard.indices.push_back(order[static_cast<size_t>(position)]);
  }
  return shard;
}

EvalShard eval_shard(int64_t dataset_size, RankInWorld where) {
  EvalShard shard;
  const int64_t per_rank = (dataset_size + where.world_size - 1) / where.world_size;
  for (int64_t slot = 0; slot < per_rank; ++slot) {
    const int64_t position = where.rank + slot * where.world_size;
    // Padding repeats real samples (so batches keep a valid shape) and is never counted.
    shard.indices.push_back(position < dataset_size ? position : position % dataset_size);
    if (position < dataset_size) ++shard.valid_count;
  }
  return shard;
}

}  // namespace scalestudy::data
