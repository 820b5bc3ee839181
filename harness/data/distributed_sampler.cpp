#include "harness/data/distributed_sampler.hpp"

#include <numeric>
#include <random>

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
  auto geometry = BatchGeometry::create(dataset_size, global_batch, where);
  if (!geometry) return geometry.status();
  std::vector<int64_t> order(static_cast<size_t>(dataset_size));
  if (shuffle) {
    order = epoch_permutation(dataset_size, seed, epoch);
  } else {
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  TrainShard shard;
  shard.per_rank_batch = geometry->per_rank_batch();
  shard.steps_per_epoch = geometry->steps_per_epoch();
  const int64_t used = geometry->samples_per_epoch();
  shard.indices.reserve(static_cast<size_t>(shard.steps_per_epoch * shard.per_rank_batch));
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
