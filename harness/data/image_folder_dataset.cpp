#include "harness/data/image_folder_dataset.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "harness/data/image_folder_scan.hpp"

namespace scalestudy::data {
namespace {

namespace fs = std::filesystem;

// An advisory exclusive lock on `path` (created if missing), held for the object's life.
// Where the file system has no locks (some network mounts), packing still works: the
// atomic rename keeps the pack whole, only the decode is no longer shared.
class PackLock {
 public:
  explicit PackLock(const std::string& path)
      : descriptor_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (descriptor_ >= 0) {
      while (::flock(descriptor_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~PackLock() {
    if (descriptor_ >= 0) ::close(descriptor_);  // closing releases the lock
  }
  PackLock(const PackLock&) = delete;
  PackLock& operator=(const PackLock&) = delete;

 private:
  int descriptor_;
};

// Why the pack at `path` cannot stand for `listing`; empty when it is current.
std::string staleness(const std::string& path, const ImageFolderListing& listing,
                      const std::vector<std::string>& class_names, int64_t image_size) {
  std::error_code error;
  if (!fs::exists(path, error)) return "no pack yet";
  Result<PackHeader> header = read_pack_header(path);
  if (!header) return header.status().message();
  if (header->height != image_size || header->width != image_size) return "other image size";
  if (header->class_names != class_names) return "class folders changed";
  if (header->source != listing.fingerprint) {
    return "sources changed (pack: " + header->source.describe() +
           "; now: " + listing.fingerprint.describe() + ")";
  }
  return "";
}

Result<PackedSplitLoad> decode_split(const ImageFolderListing& listing,
                                     const std::vector<std::string>& class_names,
                                     const ImageFolderOptions& options) {
  const int64_t count = static_cast<int64_t>(listing.files.size());
  torch::Tensor images =
      torch::empty({count, 3, options.image_size, options.image_size}, torch::kUInt8);
  Result<DecodeReport> decoded = decode_images(listing.files, options.image_size,
                                               options.decode_threads, images.data_ptr<uint8_t>());
  if (!decoded) return decoded.status();
  PackedSplitLoad load;
  load.packed.header = {
      count, 3, options.image_size, options.image_size, class_names, listing.fingerprint};
  load.packed.split.images = images;
  load.packed.split.labels = torch::tensor(
      std::vector<int64_t>(listing.labels.begin(), listing.labels.end()), torch::kLong);
  load.outcome.decode = *decoded;
  return load;
}

void print_outcome(const std::string& name, const std::string& split, const PackOutcome& outcome) {
  if (outcome.reused) return;
  const DecodeReport& decode = outcome.decode;
  std::cerr << name << ": " << split << ": decoded " << decode.images << " images in "
            << decode.seconds << " s (" << static_cast<int64_t>(decode.images_per_second())
            << " images/s, " << decode.threads << " threads; " << outcome.repack_reason << ")"
            << (outcome.path.empty() ? " without a cache" : " into " + outcome.path) << "\n";
  if (decode.warnings > 0) {
    std::cerr << name << ": " << split << ": " << decode.warnings
              << " images decoded with warnings, first: " << decode.first_warning << "\n";
  }
}

}  // namespace

std::vector<std::string> image_folder_dataset_names() {
  return {"imagefolder", "tinyimagenet"};
}

bool is_image_folder_dataset(const std::string& name) {
  return name == "imagefolder" || name == "tinyimagenet";
}

ChannelStats imagenet_channel_stats() {
  return {{0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
}

AugmentOptions image_folder_augmentation() {
  AugmentOptions augment;
  augment.crop_padding = 4;
  augment.horizontal_flip = true;
  return augment;
}

Result<std::string> find_image_folder_root(const std::string& root) {
  std::vector<std::string> searched;
  for (const char* subfolder : {".", "tiny-imagenet-200", "tinyimagenet"}) {
    const fs::path candidate = (fs::path(root) / subfolder).lexically_normal();
    std::error_code error;
    if (fs::is_directory(candidate / "train", error)) return candidate.string();
    searched.push_back(candidate.string());
  }
  std::string listed;
  for (const std::string& folder : searched) listed += (listed.empty() ? "" : ", ") + folder;
  return Status::error("no train/ folder in any of: " + listed +
                       " (expected train/<class>/*.JPEG and val/)");
}

std::string pack_cache_path(const std::string& root, const std::string& split,
                            const ImageFolderOptions& options) {
  const fs::path folder =
      options.cache_dir.empty() ? fs::path(root) / kPackCacheFolder : fs::path(options.cache_dir);
  return (folder / (split + "-" + std::to_string(options.image_size) + ".sspack")).string();
}

Result<PackedSplitLoad> pack_split(const std::string& root, const std::string& split,
                                   const std::string& pack_path, const ImageFolderOptions& options,
                                   bool force) {
  if (options.image_size <= 0) {
    return Status::error("image size " + std::to_string(options.image_size) + " is not positive");
  }
  Result<std::vector<std::string>> class_names = scan_class_names(root);
  if (!class_names) return class_names.status();
  Result<ImageFolderListing> listing = scan_split(root, split, *class_names);
  if (!listing) return listing.status();

  std::error_code error;
  fs::create_directories(fs::path(pack_path).parent_path(), error);
  if (error) {
    // A read-only data root (a shared reference copy) still trains, decoding every time.
    Result<PackedSplitLoad> load = decode_split(*listing, *class_names, options);
    if (load) {
      load->outcome.repack_reason = "cannot create " + fs::path(pack_path).parent_path().string() +
                                    ": " + error.message() + "; set a writable cache folder";
    }
    return load;
  }
  PackLock lock(pack_path + ".lock");
  std::string reason =
      force ? "forced" : staleness(pack_path, *listing, *class_names, options.image_size);
  if (reason.empty()) {
    Result<PackedSplit> cached = read_pack_file(pack_path);
    if (cached) return PackedSplitLoad{std::move(*cached), PackOutcome{pack_path, true, "", {}}};
    reason = cached.status().message();
  }
  Result<PackedSplitLoad> load = decode_split(*listing, *class_names, options);
  if (!load) return load;
  const torch::Tensor labels32 = load->packed.split.labels.to(torch::kInt);
  const std::vector<int32_t> labels(labels32.data_ptr<int32_t>(),
                                    labels32.data_ptr<int32_t>() + labels32.numel());
  Status written = write_pack_file(pack_path, load->packed.header, labels,
                                   load->packed.split.images.data_ptr<uint8_t>());
  if (!written) return written;
  load->outcome.path = pack_path;
  load->outcome.repack_reason = reason;
  return load;
}

Result<ImageDataset> load_image_folder_dataset(const std::string& name, const std::string& root,
                                               const ImageFolderOptions& options) {
  Result<std::string> tree = find_image_folder_root(root);
  if (!tree) return Status::error(name + ": " + tree.status().message());
  ImageDataset dataset;
  dataset.name = name;
  dataset.normalization = imagenet_channel_stats();
  for (const char* split : {"train", "val"}) {
    Result<PackedSplitLoad> load =
        pack_split(*tree, split, pack_cache_path(*tree, split, options), options);
    if (!load) return Status::error(name + ": " + load.status().message());
    print_outcome(name, split, load->outcome);
    dataset.num_classes = static_cast<int64_t>(load->packed.header.class_names.size());
    (std::string(split) == "train" ? dataset.train : dataset.test) = load->packed.split;
  }
  return dataset;
}

}  // namespace scalestudy::data
