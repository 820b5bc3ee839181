// class_balanced_subset(): part of a split that covers its classes evenly, for runs that
// train or validate on a subset. A prefix would not do: ImageFolder packs (and any split
// stored class by class) hold one class at the front. Samples are taken round-robin over
// the classes, each class's samples in a seeded random order, so N samples hold about
// N / classes of each class (within one, when the classes are equally large); which
// classes get the remainder is seeded too. The chosen samples keep their order in the
// split. Pure; thread-safe.
#pragma once

#include <cstdint>

#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

// `count` samples of `split` (0 or >= its size: the whole split, uncopied).
ImageSplit class_balanced_subset(const ImageSplit& split, int64_t count, uint64_t seed);

}  // namespace scalestudy::data
