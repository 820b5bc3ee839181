#include "harness/data/batch_loader.hpp"

#include <filesystem>
#include <set>

#include "harness/data/synthetic_dataset.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace sd = scalestudy::data;

namespace {

sd::ImageDataset small_dataset(int64_t channels = 3, int64_t size = 8) {
  sd::SyntheticOptions options;
  options.train_size = 100;
  options.test_size = 10;
  options.channels = channels;
  options.height = size;
  options.width = size;
  return *sd::make_synthetic_dataset(options);
}

std::vector<sd::Batch> drain(sd::BatchLoader& loader) {
  std::vector<sd::Batch> batches;
  while (auto batch = loader.next()) batches.push_back(std::move(*batch));
  return batches;
}

std::vector<sd::Batch> train_epoch(const sd::ImageDataset& dataset, sd::RankInWorld where,
                                   sd::TrainEpochOptions options) {
  auto loader = sd::BatchLoader::for_training(dataset.train, dataset.normalization, where, options);
  REQUIRE_MESSAGE(loader.is_ok(), loader.status().message());
  return drain(**loader);
}

// Back from normalised floats to the uint8 pixels they came from.
torch::Tensor to_pixels(const torch::Tensor& images, const sd::ChannelStats& stats) {
  const int64_t channels = images.size(1);
  const torch::Tensor mean = torch::tensor(stats.mean).view({1, channels, 1, 1});
  const torch::Tensor stddev = torch::tensor(stats.stddev).view({1, channels, 1, 1});
  return (images.to(torch::kDouble) * stddev + mean).mul(255).round().to(torch::kLong);
}

}  // namespace

TEST_CASE("training batches follow the rank's shard, without augmentation exactly the data") {
  const sd::ImageDataset dataset = small_dataset();
  sd::TrainEpochOptions options;
  options.global_batch = 32;
  options.seed = 3;
  options.epoch = 1;
  const std::vector<sd::Batch> batches = train_epoch(dataset, {1, 2}, options);
  auto shard = sd::train_shard(100, 32, {1, 2}, 3, 1);
  REQUIRE(batches.size() == 3);
  for (size_t b = 0; b < batches.size(); ++b) {
    const sd::Batch& batch = batches[b];
    CHECK(batch.index == static_cast<int64_t>(b));
    CHECK(batch.images.sizes() == torch::IntArrayRef({16, 3, 8, 8}));
    CHECK((batch.images.scalar_type() == torch::kFloat));
    CHECK(batch.valid_count == 16);
    const torch::Tensor indices = torch::tensor(std::vector<int64_t>(
        shard->indices.begin() + 16 * b, shard->indices.begin() + 16 * (b + 1)));
    CHECK(torch::equal(batch.labels, dataset.train.labels.index_select(0, indices)));
    CHECK(torch::equal(to_pixels(batch.images, dataset.normalization),
                       dataset.train.images.index_select(0, indices).to(torch::kLong)));
  }
}

TEST_CASE("normalisation maps pixel values with the per-channel mean and deviation") {
  sd::ImageSplit split{torch::tensor({0, 255, 51, 102}, torch::kUInt8).view({2, 2, 1, 1}),
                       torch::tensor({0, 1}, torch::kLong)};
  const sd::ChannelStats stats{{0.2860, 0.5}, {0.3530, 0.25}};
  const sd::Batch batch =
      sd::assemble_batch(split, torch::tensor({0, 1}, torch::kLong), stats, {}, 0);
  CHECK(batch.images[0][0][0][0].item<double>() == doctest::Approx((0.0 - 0.2860) / 0.3530));
  CHECK(batch.images[0][1][0][0].item<double>() == doctest::Approx((1.0 - 0.5) / 0.25));
  CHECK(batch.images[1][0][0][0].item<double>() == doctest::Approx((0.2 - 0.2860) / 0.3530));
  CHECK(batch.images[1][1][0][0].item<double>() == doctest::Approx((0.4 - 0.5) / 0.25));
}

TEST_CASE("prefetching changes nothing but timing: same batches with depth 0 and 2") {
  const sd::ImageDataset dataset = small_dataset();
  sd::TrainEpochOptions options;
  options.global_batch = 20;
  options.augment = {4, true};
  options.prefetch_depth = 0;
  const std::vector<sd::Batch> synchronous = train_epoch(dataset, {0, 1}, options);
  options.prefetch_depth = 2;
  const std::vector<sd::Batch> prefetched = train_epoch(dataset, {0, 1}, options);
  REQUIRE(synchronous.size() == 5);
  REQUIRE(prefetched.size() == 5);
  for (size_t b = 0; b < 5; ++b) {
    CHECK(torch::equal(synchronous[b].images, prefetched[b].images));
    CHECK(torch::equal(synchronous[b].labels, prefetched[b].labels));
  }
}

namespace {

int64_t threads_of_this_process() {
  const auto tasks = std::filesystem::directory_iterator("/proc/self/task");
  return std::distance(std::filesystem::begin(tasks), std::filesystem::end(tasks));
}

}  // namespace

// On a CPU rank a prefetching loader's thread brings its own OpenMP team beside the training
// thread's, and libgomp, with more threads than cores, stops spin-waiting (batch_loader.hpp).
TEST_CASE("a CPU rank's loader assembles on the training thread; a GPU rank's on its own") {
  CHECK(sd::prefetch_depth_for(torch::kCPU) == 0);
  CHECK(sd::prefetch_depth_for(torch::Device(torch::kCUDA, 0)) == sd::kDefaultPrefetchDepth);
  const sd::ImageDataset dataset = small_dataset(3, 64);  // big enough for parallel ops
  torch::ones({1 << 20}).mul(2).sum();  // this thread's OpenMP team exists before counting
  for (const torch::Device device : {torch::Device(torch::kCPU), torch::Device(torch::kCUDA)}) {
    CAPTURE(device.str());
    sd::TrainEpochOptions options;
    options.global_batch = 20;
    options.prefetch_depth = sd::prefetch_depth_for(device);
    const int64_t before = threads_of_this_process();
    auto loader =
        sd::BatchLoader::for_training(dataset.train, dataset.normalization, {0, 1}, options);
    REQUIRE(loader.is_ok());
    REQUIRE((*loader)->next());
    const int64_t during = threads_of_this_process();
    if (device.is_cpu()) {
      CHECK(during == before);
    } else {
      CHECK(during > before);
    }
  }
}

TEST_CASE("augmentation is reproducible per (seed, epoch, rank) and differs between epochs") {
  const sd::ImageDataset dataset = small_dataset();
  sd::TrainEpochOptions options;
  options.global_batch = 50;
  options.augment = {2, true};
  const std::vector<sd::Batch> first = train_epoch(dataset, {0, 1}, options);
  const std::vector<sd::Batch> again = train_epoch(dataset, {0, 1}, options);
  CHECK(torch::equal(first[0].images, again[0].images));
  CHECK(sd::augmentation_seed(0, 0, 0, 0) != sd::augmentation_seed(0, 1, 0, 0));
  CHECK(sd::augmentation_seed(0, 0, 0, 0) != sd::augmentation_seed(0, 0, 1, 0));
  CHECK(sd::augmentation_seed(0, 0, 0, 0) != sd::augmentation_seed(0, 0, 0, 1));
  // Same samples, seeds from different epochs: different augmentation draws.
  const torch::Tensor indices = torch::arange(50, torch::kLong);
  const sd::Batch epoch0 = sd::assemble_batch(dataset.train, indices, dataset.normalization,
                                              options.augment, sd::augmentation_seed(0, 0, 0, 0));
  const sd::Batch epoch0_again =
      sd::assemble_batch(dataset.train, indices, dataset.normalization, options.augment,
                         sd::augmentation_seed(0, 0, 0, 0));
  const sd::Batch epoch1 = sd::assemble_batch(dataset.train, indices, dataset.normalization,
                                              options.augment, sd::augmentation_seed(0, 1, 0, 0));
  CHECK(torch::equal(epoch0.images, epoch0_again.images));
  CHECK_FALSE(torch::equal(epoch0.images, epoch1.images));
}

TEST_CASE("random crop is a shift of the zero-padded image; flip mirrors some samples") {
  // Distinct pixel values make each crop offset and flip recognisable.
  const int64_t batch = 64, size = 6, pad = 2;
  sd::ImageSplit split{(torch::arange(batch * size * size, torch::kLong) % 200 + 1)
                           .to(torch::kUInt8)
                           .view({batch, 1, size, size}),
                       torch::zeros({batch}, torch::kLong)};
  const sd::ChannelStats identity{{0.0}, {1.0 / 255.0}};  // float value ~ pixel value
  const sd::Batch augmented =
      sd::assemble_batch(split, torch::arange(batch, torch::kLong), identity, {pad, true}, 1234);
  const torch::Tensor padded =
      torch::constant_pad_nd(split.images, {pad, pad, pad, pad}, 0).to(torch::kFloat);
  std::set<std::pair<int64_t, int64_t>> offsets_seen;
  int flipped = 0;
  for (int64_t i = 0; i < batch; ++i) {
    bool found = false;
    for (int64_t dy = 0; dy <= 2 * pad && !found; ++dy) {
      for (int64_t dx = 0; dx <= 2 * pad && !found; ++dx) {
        const torch::Tensor crop = padded[i].narrow(1, dy, size).narrow(2, dx, size);
        for (bool flip : {false, true}) {
          if (torch::allclose(augmented.images[i], flip ? crop.flip({2}) : crop, 0, 1e-3)) {
            found = true;
            offsets_seen.insert({dy, dx});
            flipped += flip;
            break;
          }
        }
      }
    }
    CAPTURE(i);
    CHECK_MESSAGE(found, "the sample is no shifted or mirrored crop of its image");
  }
  CHECK(offsets_seen.size() > 5);
  CHECK(flipped > 10);
  CHECK(flipped < 54);
}

TEST_CASE("evaluation batches cover every sample once and ranks run equally many batches") {
  const sd::ImageDataset dataset = small_dataset();  // 10 test samples
  int64_t total_valid = 0;
  for (int rank = 0; rank < 3; ++rank) {
    auto loader =
        sd::BatchLoader::for_evaluation(dataset.test, dataset.normalization, {rank, 3}, 3);
    REQUIRE(loader.is_ok());
    CHECK((*loader)->num_batches() == 2);  // ceil(ceil(10 / 3) / 3)
    const std::vector<sd::Batch> batches = drain(**loader);
    CHECK(batches.size() == 2);
    for (const sd::Batch& batch : batches) total_valid += batch.valid_count;
    const int64_t expected_valid = rank == 0 ? 4 : 3;
    CHECK(batches[0].valid_count + batches[1].valid_count == expected_valid);
  }
  CHECK(total_valid == 10);
}

TEST_CASE("a loader destroyed mid-epoch stops its worker") {
  const sd::ImageDataset dataset = small_dataset();
  sd::TrainEpochOptions options;
  options.global_batch = 10;
  auto loader =
      sd::BatchLoader::for_training(dataset.train, dataset.normalization, {0, 1}, options);
  REQUIRE(loader.is_ok());
  CHECK((*loader)->num_batches() == 10);
  CHECK((*loader)->next().has_value());
  loader = scalestudy::Status::error("released");  // destroys the loader with batches still queued
  CHECK_FALSE(loader.is_ok());
}

TEST_CASE("loader construction errors: normalisation for the wrong channel count") {
  const sd::ImageDataset dataset = small_dataset(1);
  sd::TrainEpochOptions options;
  options.global_batch = 10;
  auto loader =
      sd::BatchLoader::for_training(dataset.train, {{0.5, 0.5}, {0.2, 0.2}}, {0, 1}, options);
  REQUIRE_FALSE(loader.is_ok());
  CHECK(loader.status().message().find("1 channels") != std::string::npos);
}

TEST_CASE("an epoch resumed at a batch serves the batches an unbroken epoch has there") {
  const sd::ImageDataset dataset = small_dataset();
  sd::TrainEpochOptions options;
  options.global_batch = 16;
  options.seed = 4;
  options.epoch = 2;
  options.augment.crop_padding = 2;
  options.augment.horizontal_flip = true;
  const std::vector<sd::Batch> whole = train_epoch(dataset, {1, 2}, options);
  REQUIRE(whole.size() == 6);
  for (int prefetch : {0, 2}) {
    CAPTURE(prefetch);
    options.first_batch = 4;
    options.prefetch_depth = prefetch;
    const std::vector<sd::Batch> rest = train_epoch(dataset, {1, 2}, options);
    REQUIRE(rest.size() == 2);
    for (size_t i = 0; i < rest.size(); ++i) {
      CHECK(rest[i].index == whole[4 + i].index);
      CHECK(torch::equal(rest[i].images, whole[4 + i].images));
      CHECK(torch::equal(rest[i].labels, whole[4 + i].labels));
    }
  }
  options.first_batch = 9;  // past the end: an empty rest
  CHECK(train_epoch(dataset, {1, 2}, options).empty());
}
