#include "harness/data/class_balanced_subset.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "harness/data/distributed_sampler.hpp"
#include "harness/data/seed_mixing.hpp"

namespace scalestudy::data {
namespace {

// Salts the seed so the subset is drawn from a stream of its own, unrelated to the epoch
// shuffles that use the same seed.
constexpr uint64_t kSubsetStreamSalt = 0x5ab5e7c1a55e5ULL;

}  // namespace

ImageSplit class_balanced_subset(const ImageSplit& split, int64_t count, uint64_t seed) {
  const int64_t size = split.size();
  if (count <= 0 || count >= size) return split;
  const std::vector<int64_t> shuffled =
      epoch_permutation(size, mix_seed(seed ^ kSubsetStreamSalt), 0);
  const torch::Tensor labels = split.labels.contiguous();
  const int64_t* label = labels.data_ptr<int64_t>();
  // A sample's round is its place among its class in the shuffled order: every class gives
  // one sample per round, and within a round the shuffled order decides.
  std::map<int64_t, int64_t> seen_per_class;
  std::vector<std::tuple<int64_t, int64_t, int64_t>> round_position_index;
  round_position_index.reserve(static_cast<size_t>(size));
  for (int64_t position = 0; position < size; ++position) {
    const int64_t index = shuffled[static_cast<size_t>(position)];
    round_position_index.emplace_back(seen_per_class[label[index]]++, position, index);
  }
  std::sort(round_position_index.begin(), round_position_index.end());
  std::vector<int64_t> chosen;
  chosen.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    chosen.push_back(std::get<2>(round_position_index[static_cast<size_t>(i)]));
  }
  std::sort(chosen.begin(), chosen.end());
  const torch::Tensor indices = torch::tensor(chosen, torch::kLong);
  return ImageSplit{split.images.index_select(0, indices), split.labels.index_select(0, indices)};
}

}  // namespace scalestudy::data
