// ImageFolder packing and loading on generated trees of real JPEGs (and a PNG): scanning,
// decoding (threads, grayscale, CMYK, resizing), the pack file format and the cache.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "harness/data/image_folder_dataset.hpp"
#include "harness/data/image_folder_decode.hpp"
#include "harness/data/image_folder_pack_format.hpp"
#include "harness/data/image_folder_resample.hpp"
#include "harness/data/image_folder_scan.hpp"
#include "tests/harness/data_test_files.hpp"
#include "tests/harness/image_folder_test_tree.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;
using data::ImageFolderOptions;
using testing::class_colour;
using testing::ScratchDir;
using testing::wnid;

constexpr int kJpegTolerance = 8;  // uint8 levels; flat colours at quality 95, 4:4:4

// Largest |decoded - expected| over one CHW sample against an HWC source image.
int max_error(const torch::Tensor& chw, const std::vector<uint8_t>& hwc) {
  const torch::Tensor expected = torch::from_blob(const_cast<uint8_t*>(hwc.data()),
                                                  {chw.size(1), chw.size(2), 3}, torch::kUInt8)
                                     .permute({2, 0, 1})
                                     .to(torch::kInt);
  return (chw.to(torch::kInt) - expected).abs().max().item<int>();
}

int64_t mtime_ns(const std::string& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("scan: sorted classes, nested train images, TinyImageNet val annotations") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path(), {3, 4, 2, 16});
  Result<std::vector<std::string>> classes = data::scan_class_names(dir.path());
  REQUIRE_MESSAGE(classes, classes.status().message());
  CHECK(*classes == std::vector<std::string>{wnid(0), wnid(1), wnid(2)});

  Result<data::ImageFolderListing> train = data::scan_split(dir.path(), "train", *classes);
  REQUIRE_MESSAGE(train, train.status().message());
  REQUIRE(train->files.size() == 12);  // the _boxes.txt files are not images
  CHECK(train->labels == std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
  CHECK(fs::path(train->files[5]).filename() == wnid(1) + "_1.JPEG");
  CHECK(train->fingerprint.file_count == 13);  // 12 images + wnids.txt

  Result<data::ImageFolderListing> val = data::scan_split(dir.path(), "val", *classes);
  REQUIRE_MESSAGE(val, val.status().message());
  CHECK(val->labels == std::vector<int32_t>{0, 1, 2, 0, 1, 2});
  CHECK(fs::path(val->files[4]).filename() == "val_4.JPEG");
}

TEST_CASE("scan: val as class folders, and errors that name file, line and column") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path(), {2, 2, 1, 16});
  const std::vector<std::string> classes = {wnid(0), wnid(1)};

  SUBCASE("class folders under val/") {
    fs::remove_all(dir.path() + "/val");
    testing::write_jpeg(dir.path() + "/val/" + wnid(1) + "/a.jpg",
                        testing::colour_image(class_colour(1), 16, 16, 0), 16, 16);
    testing::write_png(dir.path() + "/val/" + wnid(0) + "/b.png",
                       testing::colour_image(class_colour(0), 16, 16, 0), 16, 16);
    Result<data::ImageFolderListing> val = data::scan_split(dir.path(), "val", classes);
    REQUIRE_MESSAGE(val, val.status().message());
    CHECK(val->labels == std::vector<int32_t>{0, 1});
  }
  SUBCASE("annotation with a class that has no train folder") {
    std::ofstream(dir.path() + "/val/val_annotations.txt")
        << "val_0.JPEG\t" << wnid(0) << "\t0\t0\t1\t1\nval_1.JPEG\tn09999\t0\t0\t1\t1\n";
    Result<data::ImageFolderListing> val = data::scan_split(dir.path(), "val", classes);
    REQUIRE_FALSE(val);
    CHECK(val.status().message().find("val_annotations.txt:2:12: class 'n09999'") !=
          std::string::npos);
  }
  SUBCASE("wnids.txt that disagrees with train/") {
    std::ofstream(dir.path() + "/wnids.txt") << wnid(0) << "\n" << wnid(1) << "\nn07777\n";
    Result<std::vector<std::string>> scanned = data::scan_class_names(dir.path());
    REQUIRE_FALSE(scanned);
    CHECK(scanned.status().message().find("wnids.txt:3:1: class 'n07777'") != std::string::npos);
  }
}

TEST_CASE("pack + load: shapes, labels and pixels within JPEG tolerance") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path(), {3, 8, 2, 64});
  Result<data::ImageDataset> dataset =
      data::load_image_folder_dataset("tinyimagenet", dir.path(), ImageFolderOptions{64, "", 2});
  REQUIRE_MESSAGE(dataset, dataset.status().message());
  CHECK(dataset->num_classes == 3);
  CHECK(dataset->train.images.sizes() == torch::IntArrayRef{24, 3, 64, 64});
  CHECK(dataset->train.images.dtype() == torch::kUInt8);
  CHECK(dataset->test.images.sizes() == torch::IntArrayRef{6, 3, 64, 64});
  CHECK(dataset->normalization.mean == std::vector<double>{0.485, 0.456, 0.406});
  CHECK(dataset->normalization.stddev == std::vector<double>{0.229, 0.224, 0.225});
  for (int64_t i = 0; i < 24; ++i) {
    const int label = static_cast<int>(i / 8);
    CHECK(dataset->train.labels[i].item<int64_t>() == label);
    CHECK(max_error(dataset->train.images[i],
                    testing::colour_image(class_colour(label), 64, 64, static_cast<int>(i % 8))) <=
          kJpegTolerance);
  }
  for (int64_t k = 0; k < 6; ++k) {
    CHECK(dataset->test.labels[k].item<int64_t>() == k % 3);
    CHECK(max_error(dataset->test.images[k],
                    testing::colour_image(class_colour(k % 3), 64, 64, static_cast<int>(k))) <=
          kJpegTolerance);
  }
  // The packs sit in the cache folder beside the data and read back identically.
  const std::string train_pack = dir.path() + "/.scalestudy-pack/train-64.sspack";
  Result<data::PackedSplit> packed = data::read_pack_file(train_pack);
  REQUIRE_MESSAGE(packed, packed.status().message());
  CHECK(torch::equal(packed->split.images, dataset->train.images));
  CHECK(torch::equal(packed->split.labels, dataset->train.labels));
  CHECK(packed->header.class_names == std::vector<std::string>{wnid(0), wnid(1), wnid(2)});
}

TEST_CASE("the tinyimagenet root may be the folder above tiny-imagenet-200/") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path() + "/tiny-imagenet-200", {2, 2, 1, 16});
  Result<data::ImageDataset> dataset =
      data::load_image_folder_dataset("tinyimagenet", dir.path(), ImageFolderOptions{16, "", 1});
  REQUIRE_MESSAGE(dataset, dataset.status().message());
  CHECK(dataset->train.size() == 4);
  CHECK(fs::exists(dir.path() + "/tiny-imagenet-200/.scalestudy-pack/val-16.sspack"));
  Result<data::ImageDataset> missing =
      data::load_image_folder_dataset("imagefolder", dir.path() + "/nothing", {});
  REQUIRE_FALSE(missing);
  CHECK(missing.status().message().find("imagefolder: no train/ folder") != std::string::npos);
}

TEST_CASE("cache: reused while current, re-packed when a file is added") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path(), {2, 3, 1, 32});
  const ImageFolderOptions options{32, dir.path() + "/cache", 2};
  const std::string pack = data::pack_cache_path(dir.path(), "train", options);
  CHECK(pack == dir.path() + "/cache/train-32.sspack");

  Result<data::PackedSplitLoad> first = data::pack_split(dir.path(), "train", pack, options);
  REQUIRE_MESSAGE(first, first.status().message());
  CHECK_FALSE(first->outcome.reused);
  CHECK(first->outcome.decode.images == 6);
  const int64_t written_at = mtime_ns(pack);

  Result<data::PackedSplitLoad> second = data::pack_split(dir.path(), "train", pack, options);
  REQUIRE_MESSAGE(second, second.status().message());
  CHECK(second->outcome.reused);
  CHECK(second->outcome.decode.images == 0);  // nothing decoded
  CHECK(mtime_ns(pack) == written_at);
  CHECK(torch::equal(second->packed.split.images, first->packed.split.images));

  testing::write_jpeg(dir.path() + "/train/" + wnid(1) + "/images/zz_extra.JPEG",
                      testing::colour_image(class_colour(1), 32, 32, 3), 32, 32);
  Result<data::PackedSplitLoad> third = data::pack_split(dir.path(), "train", pack, options);
  REQUIRE_MESSAGE(third, third.status().message());
  CHECK_FALSE(third->outcome.reused);
  CHECK(third->outcome.repack_reason.find("sources changed") != std::string::npos);
  CHECK(third->packed.split.size() == 7);
  CHECK(third->packed.split.labels[6].item<int64_t>() == 1);  // zz_extra.JPEG sorts last in n01001

  ImageFolderOptions other_size = options;
  other_size.image_size = 16;
  Result<data::PackedSplitLoad> resized = data::pack_split(dir.path(), "train", pack, other_size);
  REQUIRE_MESSAGE(resized, resized.status().message());
  CHECK_FALSE(resized->outcome.reused);
  CHECK(resized->outcome.repack_reason == "other image size");
}

TEST_CASE("decoding on several threads gives the bytes of one thread") {
  ScratchDir dir;
  std::vector<std::string> paths;
  for (int i = 0; i < 40; ++i) {
    paths.push_back(dir.file("img/" + std::to_string(i) + ".jpg"));
    // Odd sizes exercise the DCT scaling and the resampler.
    const int height = 40 + i, width = 70 - i / 2;
    testing::write_jpeg(paths.back(), testing::colour_image(class_colour(i), height, width, i),
                        height, width);
  }
  torch::Tensor one = torch::zeros({40, 3, 24, 24}, torch::kUInt8);
  torch::Tensor many = torch::ones({40, 3, 24, 24}, torch::kUInt8);
  Result<data::DecodeReport> single = data::decode_images(paths, 24, 1, one.data_ptr<uint8_t>());
  Result<data::DecodeReport> parallel = data::decode_images(paths, 24, 4, many.data_ptr<uint8_t>());
  REQUIRE_MESSAGE(single, single.status().message());
  REQUIRE_MESSAGE(parallel, parallel.status().message());
  CHECK(single->threads == 1);
  CHECK(parallel->threads == 4);
  CHECK(torch::equal(one, many));
  CHECK(one.to(torch::kInt).sum().item<int64_t>() > 0);
}

TEST_CASE("a corrupt image is an error naming the file") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path(), {2, 3, 1, 16});
  const std::string corrupt = dir.path() + "/train/" + wnid(1) + "/images/" + wnid(1) + "_1.JPEG";

  SUBCASE("not an image at all") {
    std::ofstream(corrupt, std::ios::binary | std::ios::trunc) << "this is not a JPEG";
    Result<data::PackedSplitLoad> load = data::pack_split(
        dir.path(), "train", dir.path() + "/p.sspack", ImageFolderOptions{16, "", 2});
    REQUIRE_FALSE(load);
    CHECK(load.status().message().find(corrupt + ": corrupt or unsupported image") !=
          std::string::npos);
  }
  SUBCASE("a JPEG start marker followed by garbage") {
    std::ofstream(corrupt, std::ios::binary | std::ios::trunc) << "\xFF\xD8\xFF\xE0garbage";
    Result<data::PackedSplitLoad> load = data::pack_split(
        dir.path(), "train", dir.path() + "/p.sspack", ImageFolderOptions{16, "", 2});
    REQUIRE_FALSE(load);
    CHECK(load.status().message().find(corrupt + ": corrupt JPEG") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(dir.path() + "/p.sspack"));
}

TEST_CASE("grayscale and CMYK JPEGs and PNGs decode to RGB") {
  ScratchDir dir;
  std::string warning;
  data::ImageDecoder decoder;
  std::vector<uint8_t> chw(3 * 8 * 8);

  SUBCASE("grayscale: three equal planes") {
    std::vector<uint8_t> gray(8 * 8, 90);
    const std::vector<uint8_t> jpeg = testing::encode_jpeg(gray, 8, 8, TJPF_GRAY, TJSAMP_GRAY);
    REQUIRE(decoder.decode(jpeg, "gray.jpg", 8, chw.data(), warning));
    for (uint8_t value : chw) CHECK(std::abs(value - 90) <= 2);
  }
  SUBCASE("CMYK (inverted, as Adobe writes it): R = C*K/255") {
    std::vector<uint8_t> cmyk;
    for (int i = 0; i < 64; ++i) cmyk.insert(cmyk.end(), {255, 60, 128, 200});
    const std::vector<uint8_t> jpeg = testing::encode_jpeg(cmyk, 8, 8, TJPF_CMYK, TJSAMP_444, 100);
    REQUIRE(decoder.decode(jpeg, "cmyk.jpg", 8, chw.data(), warning));
    CHECK(std::abs(chw[0] - 200) <= 3);    // 255 * 200 / 255
    CHECK(std::abs(chw[64] - 47) <= 3);    // 60 * 200 / 255
    CHECK(std::abs(chw[128] - 100) <= 3);  // 128 * 200 / 255
  }
  SUBCASE("PNG decodes losslessly") {
    const std::vector<uint8_t> rgb = testing::colour_image(class_colour(4), 8, 8, 1);
    testing::write_png(dir.file("a.png"), rgb, 8, 8);
    REQUIRE(decoder.decode(file_bytes(dir.file("a.png")), "a.png", 8, chw.data(), warning));
    CHECK(max_error(torch::from_blob(chw.data(), {3, 8, 8}, torch::kUInt8), rgb) == 0);
  }
}

TEST_CASE("resampling: exact at the same size, centre square, area average when shrinking") {
  std::vector<uint8_t> out(3 * 4 * 4);
  SUBCASE("same size is a copy") {
    const std::vector<uint8_t> rgb = testing::colour_image(class_colour(2), 4, 4, 3);
    data::resample_center_square(rgb.data(), 4, 4, 4, out.data());
    CHECK(max_error(torch::from_blob(out.data(), {3, 4, 4}, torch::kUInt8), rgb) == 0);
  }
  SUBCASE("a wide image keeps its centre square") {
    // 8 x 16: columns 0-3 and 12-15 red, the centre 8 x 8 blue; shrunk to 4 x 4: all blue.
    std::vector<uint8_t> rgb(8 * 16 * 3);
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 16; ++x) {
        const bool centre = x >= 4 && x < 12;
        uint8_t* pixel = rgb.data() + (y * 16 + x) * 3;
        pixel[0] = centre ? 0 : 255;
        pixel[2] = centre ? 255 : 0;
      }
    }
    data::resample_center_square(rgb.data(), 8, 16, 4, out.data());
    for (int i = 0; i < 16; ++i) {
      CHECK(out[i] == 0);         // red plane
      CHECK(out[32 + i] == 255);  // blue plane
    }
  }
  SUBCASE("halving a checkerboard averages it to grey") {
    std::vector<uint8_t> rgb(8 * 8 * 3);
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 8; ++x) {
        for (int c = 0; c < 3; ++c) rgb[(y * 8 + x) * 3 + c] = (x + y) % 2 ? 200 : 0;
      }
    }
    data::resample_center_square(rgb.data(), 8, 8, 4, out.data());
    for (int c = 0; c < 3; ++c) {
      for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) {
          const int value = out[c * 16 + y * 4 + x];
          const bool corner = (x == 0 || x == 3) && (y == 0 || y == 3);
          CHECK(value >= (corner ? 80 : 100));  // corners see a truncated filter
          CHECK(value <= (corner ? 120 : 100));
        }
      }
    }
  }
}

TEST_CASE("pack format: round trip, and truncation or a flipped byte is detected") {
  ScratchDir dir;
  const std::string path = dir.file("x.sspack");
  data::PackHeader header{5, 3, 4, 2, {"cat", "dog"}, {7, 1234, 567890}};
  std::vector<uint8_t> pixels(5 * 3 * 4 * 2);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7);
  REQUIRE(data::write_pack_file(path, header, {0, 1, 1, 0, 1}, pixels.data()));
  std::vector<uint8_t> bytes = file_bytes(path);
  CHECK(std::string(bytes.begin(), bytes.begin() + 8) == "SSPACK01");

  Result<data::PackedSplit> read = data::read_pack_file(path);
  REQUIRE_MESSAGE(read, read.status().message());
  CHECK(read->header.class_names == header.class_names);
  CHECK(read->header.source == header.source);
  CHECK(read->split.labels.equal(torch::tensor({0, 1, 1, 0, 1}, torch::kLong)));
  CHECK(read->split.images.sizes() == torch::IntArrayRef{5, 3, 4, 2});
  CHECK(read->split.images[4][2][3][1].item<uint8_t>() == pixels.back());
  Result<data::PackHeader> only_header = data::read_pack_header(path);
  REQUIRE(only_header);
  CHECK(only_header->count == 5);

  SUBCASE("a flipped pixel byte") {
    bytes[bytes.size() - 30] ^= 0x10;
    testing::write_file(path, bytes.data(), bytes.size());
    Result<data::PackedSplit> corrupt = data::read_pack_file(path);
    REQUIRE_FALSE(corrupt);
    CHECK(corrupt.status().message() == path + ": checksum mismatch (corrupt; re-pack)");
  }
  SUBCASE("a truncated file") {
    testing::write_file(path, bytes.data(), bytes.size() - 20);
    Result<data::PackedSplit> truncated = data::read_pack_file(path);
    REQUIRE_FALSE(truncated);
    CHECK(truncated.status().message().find("truncated or corrupt") != std::string::npos);
  }
  SUBCASE("a label out of range") {
    header.class_names = {"cat"};
    REQUIRE(data::write_pack_file(path, header, {0, 1, 1, 0, 1}, pixels.data()));
    Result<data::PackedSplit> bad = data::read_pack_file(path);
    REQUIRE_FALSE(bad);
    CHECK(bad.status().message().find("outside [0, 1)") != std::string::npos);
  }
}

TEST_CASE("a corrupt cached pack is re-packed rather than trusted") {
  ScratchDir dir;
  testing::write_tiny_imagenet_tree(dir.path(), {2, 2, 1, 16});
  const ImageFolderOptions options{16, "", 1};
  const std::string pack = data::pack_cache_path(dir.path(), "val", options);
  REQUIRE(data::pack_split(dir.path(), "val", pack, options));
  std::vector<uint8_t> bytes = file_bytes(pack);
  bytes[bytes.size() - 40] ^= 0xFF;
  testing::write_file(pack, bytes.data(), bytes.size());
  Result<data::PackedSplitLoad> load = data::pack_split(dir.path(), "val", pack, options);
  REQUIRE_MESSAGE(load, load.status().message());
  CHECK_FALSE(load->outcome.reused);
  CHECK(load->outcome.repack_reason.find("checksum mismatch") != std::string::npos);
  CHECK(data::read_pack_file(pack));
}

}  // namespace
}  // namespace scalestudy
