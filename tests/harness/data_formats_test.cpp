#include <cstdlib>
#include <filesystem>

#include "harness/data/cifar_format.hpp"
#include "harness/data/dataset_registry.hpp"
#include "harness/data/idx_format.hpp"
#include "harness/data/synthetic_dataset.hpp"
#include "tests/harness/data_test_files.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "tests/support/skip.hpp"

namespace sd = scalestudy::data;
using scalestudy::testing::cifar_bytes;
using scalestudy::testing::idx_bytes;
using scalestudy::testing::image_payload;
using scalestudy::testing::label_payload;
using scalestudy::testing::ScratchDir;
using scalestudy::testing::write_bytes;
using scalestudy::testing::write_idx_split;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("IDX files read the same plain and gzip-compressed, shaped by their header") {
  ScratchDir dir;
  for (const std::string suffix : {"", ".gz"}) {
    CAPTURE(suffix);
    const std::string images = dir.file("images" + suffix);
    const std::string labels = dir.file("labels" + suffix);
    write_bytes(images, idx_bytes({3, 4, 5}, image_payload(3, 4, 5)));
    write_bytes(labels, idx_bytes({3}, {7, 0, 9}));
    auto split = sd::read_idx_split(images, labels, /*transpose_images=*/false);
    REQUIRE_MESSAGE(split.is_ok(), split.status().message());
    CHECK(split->images.sizes() == torch::IntArrayRef({3, 1, 4, 5}));
    CHECK((split->images.scalar_type() == torch::kUInt8));
    CHECK((split->labels.scalar_type() == torch::kLong));
    CHECK(split->labels[2].item<int64_t>() == 9);
    // Pixel (i, r, c) was written as (i * 31 + r * 5 + c) % 251.
    CHECK(split->images[2][0][3][1].item<int>() == (2 * 31 + 3 * 5 + 1) % 251);
  }
}

TEST_CASE("EMNIST-style transposed IDX images are turned upright on request") {
  ScratchDir dir;
  write_bytes(dir.file("images"), idx_bytes({2, 3, 4}, image_payload(2, 3, 4)));
  write_bytes(dir.file("labels"), idx_bytes({2}, {1, 2}));
  auto stored = sd::read_idx_split(dir.file("images"), dir.file("labels"), false);
  auto upright = sd::read_idx_split(dir.file("images"), dir.file("labels"), true);
  REQUIRE(stored.is_ok());
  REQUIRE(upright.is_ok());
  CHECK(upright->images.sizes() == torch::IntArrayRef({2, 1, 4, 3}));
  CHECK(torch::equal(upright->images, stored->images.transpose(2, 3)));
  CHECK(upright->images.is_contiguous());
}

TEST_CASE("IDX errors name the file and what is wrong") {
  ScratchDir dir;
  const std::string good_labels = dir.file("good-labels");
  write_bytes(good_labels, idx_bytes({3}, {1, 2, 3}));

  SUBCASE("bad magic number") {
    std::vector<uint8_t> bytes = idx_bytes({3, 4, 5}, image_payload(3, 4, 5));
    bytes[2] = 0x0d;  // float data, not unsigned bytes
    write_bytes(dir.file("bad-magic"), bytes);
    auto result = sd::read_idx_split(dir.file("bad-magic"), good_labels, false);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), dir.file("bad-magic")));
    CHECK(contains(result.status().message(), "magic"));
  }
  SUBCASE("wrong number of dimensions") {
    write_bytes(dir.file("labels-3d"), idx_bytes({3, 1, 1}, {1, 2, 3}));
    auto result = sd::read_idx_ubyte(dir.file("labels-3d"), 1);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), dir.file("labels-3d")));
    CHECK(contains(result.status().message(), "3 dimensions, expected 1"));
  }
  SUBCASE("truncated plain file") {
    std::vector<uint8_t> bytes = idx_bytes({3, 4, 5}, image_payload(3, 4, 5));
    bytes.resize(bytes.size() - 7);
    write_bytes(dir.file("short"), bytes);
    auto result = sd::read_idx_split(dir.file("short"), good_labels, false);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), dir.file("short")));
    CHECK(contains(result.status().message(), "truncated"));
  }
  SUBCASE("truncated header") {
    write_bytes(dir.file("stub"), {0, 0, 8, 3, 0, 0});
    auto result = sd::read_idx_ubyte(dir.file("stub"), 3);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), dir.file("stub")));
    CHECK(contains(result.status().message(), "header"));
  }
  SUBCASE("truncated gzip stream") {
    const std::string full = dir.file("full.gz");
    write_bytes(full, idx_bytes({30, 28, 28}, image_payload(30, 28, 28)));
    const auto size = std::filesystem::file_size(full);
    std::filesystem::resize_file(full, size / 2);
    auto result = sd::read_idx_ubyte(full, 3);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), full));
  }
  SUBCASE("image and label counts differ") {
    write_bytes(dir.file("images"), idx_bytes({4, 4, 5}, image_payload(4, 4, 5)));
    auto result = sd::read_idx_split(dir.file("images"), good_labels, false);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), dir.file("images")));
    CHECK(contains(result.status().message(), good_labels));
    CHECK(contains(result.status().message(), "4 images"));
  }
  SUBCASE("missing file") {
    auto result = sd::read_idx_ubyte(dir.file("absent"), 1);
    REQUIRE_FALSE(result.is_ok());
    CHECK(contains(result.status().message(), dir.file("absent")));
  }
}

TEST_CASE("fashion-mnist loads from a root in the usual layouts, with published statistics") {
  ScratchDir dir;
  write_idx_split(dir.file("fashion-mnist/"), "train", 12, /*gzip=*/true);
  write_idx_split(dir.file("fashion-mnist/"), "t10k", 5, /*gzip=*/false);
  sd::DatasetOptions options;
  options.name = "fashion-mnist";
  options.root = dir.path();
  auto dataset = sd::load_dataset(options);
  REQUIRE_MESSAGE(dataset.is_ok(), dataset.status().message());
  CHECK(dataset->train.size() == 12);
  CHECK(dataset->test.size() == 5);
  CHECK(dataset->num_classes == 10);
  CHECK(dataset->channels() == 1);
  CHECK(dataset->height() == 28);
  CHECK(dataset->normalization.mean == std::vector<double>{0.2860});
  CHECK(dataset->normalization.stddev == std::vector<double>{0.3530});
}

TEST_CASE("a label outside the class range is an error naming the labels file") {
  ScratchDir dir;
  write_idx_split(dir.file("mnist/"), "train", 4, false);
  write_bytes(dir.file("mnist/t10k-images-idx3-ubyte"),
              idx_bytes({2, 28, 28}, image_payload(2, 28, 28)));
  write_bytes(dir.file("mnist/t10k-labels-idx1-ubyte"), idx_bytes({2}, {3, 10}));
  sd::DatasetOptions options;
  options.name = "mnist";
  options.root = dir.path();
  auto dataset = sd::load_dataset(options);
  REQUIRE_FALSE(dataset.is_ok());
  CHECK(contains(dataset.status().message(), "t10k-labels-idx1-ubyte"));
  CHECK(contains(dataset.status().message(), "label 10"));
}

TEST_CASE("EMNIST splits use their file prefix, class count and transposition") {
  ScratchDir dir;
  write_idx_split(dir.file("emnist/gzip/emnist-digits-"), "train", 6, true);
  write_idx_split(dir.file("emnist/gzip/emnist-digits-"), "test", 3, true);
  sd::DatasetOptions options;
  options.name = "emnist-digits";
  options.root = dir.path();
  auto dataset = sd::load_dataset(options);
  REQUIRE_MESSAGE(dataset.is_ok(), dataset.status().message());
  CHECK(dataset->num_classes == 10);
  auto stored =
      sd::read_idx_split(dir.file("emnist/gzip/emnist-digits-train-images-idx3-ubyte.gz"),
                         dir.file("emnist/gzip/emnist-digits-train-labels-idx1-ubyte.gz"), false);
  REQUIRE(stored.is_ok());
  CHECK(torch::equal(dataset->train.images, stored->images.transpose(2, 3)));
  CHECK(dataset->normalization.mean.size() == 1);
}

TEST_CASE("a missing data set names the folders searched and the environment variable") {
  ScratchDir dir;
  sd::DatasetOptions options;
  options.name = "mnist";
  options.root = dir.path();
  auto dataset = sd::load_dataset(options);
  REQUIRE_FALSE(dataset.is_ok());
  CHECK(contains(dataset.status().message(), "train-images-idx3-ubyte"));
  CHECK(contains(dataset.status().message(), dir.path() + "/mnist"));
  CHECK(contains(dataset.status().message(), "SCALESTUDY_DATA_ROOT"));
}

TEST_CASE("unknown data set names are listed with the valid ones") {
  sd::DatasetOptions options;
  options.name = "imagenet";
  auto dataset = sd::load_dataset(options);
  REQUIRE_FALSE(dataset.is_ok());
  CHECK(contains(dataset.status().message(), "'imagenet'"));
  CHECK(contains(dataset.status().message(), "fashion-mnist"));
  CHECK(contains(dataset.status().message(), "emnist-balanced"));
}

TEST_CASE("the data root comes from the explicit path, then the environment, then the default") {
  CHECK(*sd::resolve_data_root("mnist", "/explicit", "/from-env") == "/explicit");
  CHECK(*sd::resolve_data_root("mnist", "", "/from-env") == "/from-env");
  CHECK(*sd::resolve_data_root("fashion-mnist", "", nullptr) ==
        "/usr/share/datasets/fashion-mnist");
  CHECK(*sd::resolve_data_root("fashion-mnist", "", "") == "/usr/share/datasets/fashion-mnist");
  auto none = sd::resolve_data_root("cifar10", "", nullptr);
  REQUIRE_FALSE(none.is_ok());
  CHECK(contains(none.status().message(), "SCALESTUDY_DATA_ROOT"));
}

TEST_CASE("CIFAR-10 binary batches load with channel planes in order") {
  ScratchDir dir;
  for (int i = 1; i <= 5; ++i) {
    write_bytes(dir.file("cifar-10-batches-bin/data_batch_" + std::to_string(i) + ".bin"),
                cifar_bytes(3, static_cast<uint32_t>(i)));
  }
  write_bytes(dir.file("cifar-10-batches-bin/test_batch.bin"), cifar_bytes(2));
  sd::DatasetOptions options;
  options.name = "cifar10";
  options.root = dir.path();
  auto dataset = sd::load_dataset(options);
  REQUIRE_MESSAGE(dataset.is_ok(), dataset.status().message());
  CHECK(dataset->train.images.sizes() == torch::IntArrayRef({15, 3, 32, 32}));
  CHECK(dataset->test.size() == 2);
  CHECK(dataset->train.labels[0].item<int64_t>() == 1);   // batch 1 starts at label 1
  CHECK(dataset->train.labels[14].item<int64_t>() == 7);  // batch 5, record 2: (5 + 2) % 10
  const torch::Tensor image = dataset->train.images[4];   // batch 2, record 1
  CHECK(image[0][0][0].item<int>() == 200);
  CHECK(image[0][0][1].item<int>() == 11);
  CHECK(image[1][31][31].item<int>() == 21);
  CHECK(image[2][5][7].item<int>() == 31);
  CHECK(dataset->normalization.mean.size() == 3);
  CHECK(dataset->normalization.stddev[2] == doctest::Approx(0.2616));
}

TEST_CASE("CIFAR-10 errors name the file: truncated records, bad labels") {
  ScratchDir dir;
  SUBCASE("truncated") {
    std::vector<uint8_t> bytes = cifar_bytes(2);
    bytes.pop_back();
    write_bytes(dir.file("data_batch_1.bin"), bytes);
    auto split = sd::read_cifar10_batches({dir.file("data_batch_1.bin")});
    REQUIRE_FALSE(split.is_ok());
    CHECK(contains(split.status().message(), dir.file("data_batch_1.bin")));
    CHECK(contains(split.status().message(), "3073"));
  }
  SUBCASE("label out of range") {
    std::vector<uint8_t> bytes = cifar_bytes(2);
    bytes[3073] = 12;
    write_bytes(dir.file("test_batch.bin"), bytes);
    auto split = sd::read_cifar10_batches({dir.file("test_batch.bin")});
    REQUIRE_FALSE(split.is_ok());
    CHECK(contains(split.status().message(), dir.file("test_batch.bin")));
    CHECK(contains(split.status().message(), "label 12"));
  }
  SUBCASE("missing batch") {
    write_bytes(dir.file("cifar-10-batches-bin/data_batch_1.bin"), cifar_bytes(1));
    sd::DatasetOptions options;
    options.name = "cifar10";
    options.root = dir.path();
    auto dataset = sd::load_dataset(options);
    REQUIRE_FALSE(dataset.is_ok());
    CHECK(contains(dataset.status().message(), "data_batch_2.bin"));
  }
}

TEST_CASE("synthetic data is determined by its seed and learnable from class means") {
  sd::SyntheticOptions options;
  options.seed = 7;
  options.train_size = 600;
  options.test_size = 200;
  options.num_classes = 4;
  options.channels = 2;
  options.height = 8;
  options.width = 6;
  auto first = sd::make_synthetic_dataset(options);
  auto again = sd::make_synthetic_dataset(options);
  options.seed = 8;
  auto other = sd::make_synthetic_dataset(options);
  REQUIRE(first.is_ok());
  REQUIRE(other.is_ok());
  CHECK(first->train.images.sizes() == torch::IntArrayRef({600, 2, 8, 6}));
  CHECK(torch::equal(first->train.images, again->train.images));
  CHECK(torch::equal(first->test.labels, again->test.labels));
  CHECK_FALSE(torch::equal(first->train.images, other->train.images));
  CHECK(first->train.labels.max().item<int64_t>() == 3);

  // A nearest-class-mean classifier fitted on train must beat chance by far on test.
  const torch::Tensor train = first->train.images.flatten(1).to(torch::kFloat);
  const torch::Tensor test = first->test.images.flatten(1).to(torch::kFloat);
  std::vector<torch::Tensor> means;
  for (int64_t c = 0; c < 4; ++c) means.push_back(train.index({first->train.labels == c}).mean(0));
  const torch::Tensor predicted = torch::cdist(test, torch::stack(means)).argmin(1);
  const double accuracy = predicted.eq(first->test.labels).to(torch::kDouble).mean().item<double>();
  CHECK(accuracy > 0.9);
}

TEST_CASE("invalid synthetic options are rejected") {
  sd::SyntheticOptions options;
  options.num_classes = 1;
  CHECK_FALSE(sd::make_synthetic_dataset(options).is_ok());
}

TEST_CASE("Debian's Fashion-MNIST package loads when installed") {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    SKIP_UNLESS_INSTALLED(
        "fashion-mnist package not installed (apt install dataset-fashion-mnist)");
  }
  sd::DatasetOptions options;
  options.name = "fashion-mnist";
  options.root = "/usr/share/datasets/fashion-mnist";
  auto dataset = sd::load_dataset(options);
  REQUIRE_MESSAGE(dataset.is_ok(), dataset.status().message());
  CHECK(dataset->train.images.sizes() == torch::IntArrayRef({60000, 1, 28, 28}));
  CHECK(dataset->test.size() == 10000);
  // The published mean/std are the statistics of this very training split.
  const sd::ChannelStats measured = sd::compute_channel_stats(dataset->train);
  CHECK(measured.mean[0] == doctest::Approx(0.2860).epsilon(0.001));
  CHECK(measured.stddev[0] == doctest::Approx(0.3530).epsilon(0.001));
}
