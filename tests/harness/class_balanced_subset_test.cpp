#include "harness/data/class_balanced_subset.hpp"

#include <cstdlib>
#include <map>
#include <vector>

#include "tests/harness/torch_doctest.hpp"

namespace sd = scalestudy::data;

namespace {

// A class-ordered split (as an ImageFolder pack stores it): `class_sizes[c]` samples of
// class c in a row; sample i's single pixel holds i, so a subset shows where rows came from.
sd::ImageSplit class_ordered_split(const std::vector<int64_t>& class_sizes) {
  std::vector<int64_t> labels;
  for (int64_t label = 0; label < static_cast<int64_t>(class_sizes.size()); ++label) {
    labels.insert(labels.end(), static_cast<size_t>(class_sizes[label]), label);
  }
  const auto count = static_cast<int64_t>(labels.size());
  return sd::ImageSplit{torch::arange(count, torch::kUInt8).view({count, 1, 1, 1}),
                        torch::tensor(labels, torch::kLong)};
}

std::map<int64_t, int64_t> samples_per_class(const sd::ImageSplit& split) {
  std::map<int64_t, int64_t> counts;
  for (int64_t i = 0; i < split.size(); ++i) ++counts[split.labels[i].item<int64_t>()];
  return counts;
}

std::vector<int64_t> source_rows(const sd::ImageSplit& split) {
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < split.size(); ++i) rows.push_back(split.images[i].item<uint8_t>());
  return rows;
}

}  // namespace

TEST_CASE("a subset of a class-ordered split holds every class equally, rows intact") {
  const sd::ImageSplit split = class_ordered_split({12, 12, 12, 12});
  const sd::ImageSplit subset = sd::class_balanced_subset(split, 8, 7);
  REQUIRE(subset.size() == 8);
  CHECK(samples_per_class(subset) == std::map<int64_t, int64_t>{{0, 2}, {1, 2}, {2, 2}, {3, 2}});
  const std::vector<int64_t> rows = source_rows(subset);
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(subset.labels[static_cast<int64_t>(i)].item<int64_t>() == rows[i] / 12);
    if (i > 0) CHECK(rows[i] > rows[i - 1]);  // the split's order, no repeats
  }
}

TEST_CASE("the subset is fixed by the seed and changes with it") {
  const sd::ImageSplit split = class_ordered_split({12, 12, 12, 12});
  const std::vector<int64_t> first = source_rows(sd::class_balanced_subset(split, 8, 7));
  CHECK(source_rows(sd::class_balanced_subset(split, 8, 7)) == first);
  CHECK(source_rows(sd::class_balanced_subset(split, 8, 8)) != first);
}

TEST_CASE("a small class gives all it has and the others share the rest within one") {
  const sd::ImageSplit split = class_ordered_split({10, 3, 7});
  const std::map<int64_t, int64_t> nine = samples_per_class(sd::class_balanced_subset(split, 9, 1));
  CHECK(nine == std::map<int64_t, int64_t>{{0, 3}, {1, 3}, {2, 3}});
  std::map<int64_t, int64_t> twelve = samples_per_class(sd::class_balanced_subset(split, 12, 1));
  CHECK(twelve[1] == 3);
  CHECK(twelve[0] + twelve[2] == 9);
  CHECK(std::abs(twelve[0] - twelve[2]) == 1);
}

TEST_CASE("a count of 0 or at least the split's size keeps the whole split uncopied") {
  const sd::ImageSplit split = class_ordered_split({5, 5});
  for (int64_t count : {0, 10, 11}) {
    const sd::ImageSplit same = sd::class_balanced_subset(split, count, 3);
    CHECK(same.images.data_ptr() == split.images.data_ptr());
    CHECK(same.labels.data_ptr() == split.labels.data_ptr());
  }
}
