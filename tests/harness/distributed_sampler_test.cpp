#include "harness/data/distributed_sampler.hpp"

#include <algorithm>
#include <set>

#include "tests/harness/torch_doctest.hpp"

namespace sd = scalestudy::data;

TEST_CASE("the epoch permutation depends on seed and epoch only, and reshuffles each epoch") {
  const std::vector<int64_t> epoch0 = sd::epoch_permutation(1000, 42, 0);
  std::vector<int64_t> sorted = epoch0;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(sorted[static_cast<size_t>(i)] == i);
  CHECK(sd::epoch_permutation(1000, 42, 0) == epoch0);
  CHECK(sd::epoch_permutation(1000, 42, 1) != epoch0);
  CHECK(sd::epoch_permutation(1000, 43, 0) != epoch0);
  // Pinned: a change of generator would silently change every run's sample order.
  CHECK(sd::epoch_permutation(8, 1, 0) == std::vector<int64_t>{5, 2, 1, 4, 3, 6, 0, 7});
}

TEST_CASE("training shards are disjoint, equal, and drop the tail that misses a global batch") {
  const int64_t dataset_size = 103, global_batch = 20;
  const int world_size = 4;
  std::set<int64_t> seen;
  for (int rank = 0; rank < world_size; ++rank) {
    auto shard = sd::train_shard(dataset_size, global_batch, {rank, world_size}, 5, 3);
    REQUIRE(shard.is_ok());
    CHECK(shard->steps_per_epoch == 5);
    CHECK(shard->per_rank_batch == 5);
    CHECK(shard->indices.size() == 25);
    for (int64_t index : shard->indices) {
      CHECK(index >= 0);
      CHECK(index < dataset_size);
      CHECK(seen.insert(index).second);
    }
  }
  CHECK(seen.size() == 100);
}

TEST_CASE("global batch k is the same samples whatever the world size") {
  const int64_t dataset_size = 64, global_batch = 16;
  const std::vector<int64_t> order = sd::epoch_permutation(dataset_size, 9, 2);
  for (int world_size : {1, 2, 4, 8}) {
    CAPTURE(world_size);
    for (int64_t step = 0; step < dataset_size / global_batch; ++step) {
      std::set<int64_t> global;
      for (int rank = 0; rank < world_size; ++rank) {
        auto shard = sd::train_shard(dataset_size, global_batch, {rank, world_size}, 9, 2);
        REQUIRE(shard.is_ok());
        const auto begin = shard->indices.begin() + step * shard->per_rank_batch;
        global.insert(begin, begin + shard->per_rank_batch);
      }
      const std::set<int64_t> expected(order.begin() + step * global_batch,
                                       order.begin() + (step + 1) * global_batch);
      CHECK(global == expected);
    }
  }
}

TEST_CASE("every rank computes the same permutation: shards agree with one shared order") {
  const std::vector<int64_t> order = sd::epoch_permutation(40, 11, 0);
  auto rank1 = sd::train_shard(40, 8, {1, 4}, 11, 0);
  REQUIRE(rank1.is_ok());
  for (size_t j = 0; j < rank1->indices.size(); ++j) CHECK(rank1->indices[j] == order[1 + 4 * j]);
}

TEST_CASE("unshuffled training shards keep the natural order") {
  auto shard = sd::train_shard(10, 4, {1, 2}, 0, 0, /*shuffle=*/false);
  REQUIRE(shard.is_ok());
  CHECK(shard->indices == std::vector<int64_t>{1, 3, 5, 7});
}

TEST_CASE("training shard errors: batch not divisible, larger than the data, bad rank") {
  auto indivisible = sd::train_shard(100, 10, {0, 3}, 0, 0);
  REQUIRE_FALSE(indivisible.is_ok());
  CHECK(indivisible.status().message().find("multiple of world_size 3") != std::string::npos);
  CHECK_FALSE(sd::train_shard(10, 12, {0, 1}, 0, 0).is_ok());
  CHECK_FALSE(sd::train_shard(100, 10, {2, 2}, 0, 0).is_ok());
}

TEST_CASE("evaluation visits every sample exactly once across ranks, padding at the end") {
  for (int64_t dataset_size : {1, 3, 10, 17}) {
    for (int world_size : {1, 3, 4}) {
      CAPTURE(dataset_size);
      CAPTURE(world_size);
      std::multiset<int64_t> counted;
      size_t shard_length = 0;
      for (int rank = 0; rank < world_size; ++rank) {
        const sd::EvalShard shard = sd::eval_shard(dataset_size, {rank, world_size});
        if (rank == 0) shard_length = shard.indices.size();
        CHECK(shard.indices.size() == shard_length);  // equal batch counts on every rank
        counted.insert(shard.indices.begin(), shard.indices.begin() + shard.valid_count);
        for (int64_t index : shard.indices) CHECK(index < dataset_size);
      }
      CHECK(counted.size() == static_cast<size_t>(dataset_size));
      for (int64_t i = 0; i < dataset_size; ++i) CHECK(counted.count(i) == 1);
    }
  }
}
