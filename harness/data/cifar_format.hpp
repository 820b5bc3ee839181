// Reader for the CIFAR-10 binary format (data_batch_1..5.bin, test_batch.bin): records of
// one label byte followed by 3072 pixel bytes (1024 red, 1024 green, 1024 blue, row-major
// 32x32). Errors name the file and what is wrong. Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

inline constexpr int64_t kCifar10RecordBytes = 1 + 3 * 32 * 32;

// The records of all `paths`, concatenated in order, as one split [N, 3, 32, 32].
Result<ImageSplit> read_cifar10_batches(const std::vector<std::string>& paths);

}  // namespace scalestudy::data
