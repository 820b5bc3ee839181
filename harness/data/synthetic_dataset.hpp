// A seeded synthetic image-classification data set for runs that must not depend on files
// (scaling studies of throughput, tests). Each class has a random template image; a sample
// is its class template plus Gaussian pixel noise, so the labels are learnable and the loss
// decreases. The same options give the same bytes on every rank and every run. Stateless;
// thread-safe.
#pragma once

#include <cstdint>

#include "harness/core/status.hpp"
#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

struct SyntheticOptions {
  uint64_t seed = 0;
  int64_t train_size = 10000;
  int64_t test_size = 2000;
  int64_t num_classes = 10;
  int64_t channels = 3;
  int64_t height = 32;
  int64_t width = 32;
  double noise_stddev_pixels = 48.0;  // in uint8 pixel units; larger makes it harder
};

Result<ImageDataset> make_synthetic_dataset(const SyntheticOptions& options);

}  // namespace scalestudy::data
