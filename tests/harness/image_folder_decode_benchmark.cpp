// Decode throughput of the ImageFolder packer, side by side in one run: 1 thread vs 2
// threads vs one per hardware thread over TinyImageNet-like JPEGs (64 x 64, quality 75,
// 4:2:0, textured so the entropy coder has real work), then the time to load the pack
// back (map + checksum). Prints images/s and ratios; asserts only that every thread
// count produced the same bytes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "harness/data/image_folder_dataset.hpp"
#include "tests/harness/data_test_files.hpp"
#include "tests/harness/image_folder_test_tree.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy {
namespace {

constexpr int kImages = 2000;
constexpr int kSize = 64;

std::vector<uint8_t> textured_image(std::mt19937& random, int label) {
  std::vector<uint8_t> pixels =
      testing::colour_image(testing::class_colour(label), kSize, kSize, label);
  std::uniform_int_distribution<int> noise(-20, 20);
  for (uint8_t& value : pixels)
    value = static_cast<uint8_t>(std::clamp(value + noise(random), 0, 255));
  return pixels;
}

TEST_CASE("benchmark: JPEG decode images/s by thread count, and pack load time") {
  testing::ScratchDir dir;
  std::mt19937 random(7);
  for (int i = 0; i < kImages; ++i) {
    const int label = i % 4;
    const std::vector<uint8_t> bytes =
        testing::encode_jpeg(textured_image(random, label), kSize, kSize, TJPF_RGB, TJSAMP_420, 75);
    testing::write_file(
        dir.path() + "/train/" + testing::wnid(label) + "/" + std::to_string(i) + ".JPEG",
        bytes.data(), bytes.size());
  }
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::Tensor reference;
  double single_rate = 0;
  std::vector<int> thread_counts = {1, 2};
  if (hardware > 2) thread_counts.push_back(hardware);
  for (int threads : thread_counts) {
    data::ImageFolderOptions options{kSize, dir.path() + "/cache-" + std::to_string(threads),
                                     threads};
    Result<data::PackedSplitLoad> load = data::pack_split(
        dir.path(), "train", data::pack_cache_path(dir.path(), "train", options), options);
    REQUIRE_MESSAGE(load, load.status().message());
    const data::DecodeReport& decode = load->outcome.decode;
    if (threads == 1) single_rate = decode.images_per_second();
    std::printf("decode %d images %dx%d: %d thread(s): %.3f s, %.0f images/s (x%.2f vs 1 thread)\n",
                kImages, kSize, kSize, decode.threads, decode.seconds, decode.images_per_second(),
                decode.images_per_second() / single_rate);
    if (!reference.defined()) reference = load->packed.split.images;
    CHECK(torch::equal(load->packed.split.images, reference));
  }
  data::ImageFolderOptions options{kSize, dir.path() + "/cache-1", 1};
  const auto start = std::chrono::steady_clock::now();
  Result<data::PackedSplitLoad> cached = data::pack_split(
      dir.path(), "train", data::pack_cache_path(dir.path(), "train", options), options);
  const double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(cached);
  CHECK(cached->outcome.reused);
  std::printf(
      "load cached pack (scan + map + checksum): %.4f s, %.0f images/s (x%.0f vs decoding on 1 "
      "thread)\n",
      load_seconds, kImages / load_seconds, kImages / load_seconds / single_rate);
}

}  // namespace
}  // namespace scalestudy
