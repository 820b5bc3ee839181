// ImageFolder data sets ("imagefolder", "tinyimagenet"): a tree of JPEG/PNG files (layout
// in image_folder_scan.hpp) decoded once into packed split files (image_folder_pack_format.hpp)
// and trained from those.
//
// pack_split() returns one split's pack: the cached one when it is current, else it scans,
// decodes on worker threads and writes the pack atomically. A pack is current when its
// version, image size, class names and source fingerprint (file count, total bytes, newest
// mtime) match a fresh scan, so adding, removing or touching an image re-packs. The cache
// lives at <cache_dir>/<split>-<size>.sspack (default cache_dir: <root>/.scalestudy-pack).
// Processes packing the same file (the ranks of a node) take turns on an advisory lock
// beside it, so one decodes and the others read its result.
//
// load_image_folder_dataset() packs/loads train and val into an ImageDataset with ImageNet
// normalisation. Stateless; thread-safe (processes coordinate through the lock file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/data/batch_assembly.hpp"
#include "harness/data/image_dataset.hpp"
#include "harness/data/image_folder_decode.hpp"
#include "harness/data/image_folder_pack_format.hpp"

namespace scalestudy::data {

inline constexpr char kPackCacheFolder[] = ".scalestudy-pack";

struct ImageFolderOptions {
  int64_t image_size = 64;  // packed images are image_size x image_size RGB
  std::string cache_dir;    // empty: <root>/.scalestudy-pack
  int decode_threads = 0;   // 0: one per hardware thread
};

struct PackOutcome {
  std::string path;     // the pack file read or written
  bool reused = false;  // true: the cached pack was current, nothing was decoded
  std::string
      repack_reason;    // why a cached pack was not reused ("missing", "sources changed: ...")
  DecodeReport decode;  // filled when the split was decoded
};

struct PackedSplitLoad {
  PackedSplit packed;
  PackOutcome outcome;
};

// The names that select this loader in the data set registry.
std::vector<std::string> image_folder_dataset_names();
bool is_image_folder_dataset(const std::string& name);

// ImageNet's per-channel mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225).
ChannelStats imagenet_channel_stats();

// Random crop from a 4-pixel zero padding plus horizontal flip (the CIFAR/TinyImageNet recipe).
AugmentOptions image_folder_augmentation();

// The folder holding train/: `root` itself, else tiny-imagenet-200/ or tinyimagenet/ under it.
Result<std::string> find_image_folder_root(const std::string& root);

// <cache_dir or root/.scalestudy-pack>/<split>-<image_size>.sspack
std::string pack_cache_path(const std::string& root, const std::string& split,
                            const ImageFolderOptions& options);

// Packs (or reuses) <root>/<split> into `pack_path`. `force`: decode even when current.
Result<PackedSplitLoad> pack_split(const std::string& root, const std::string& split,
                                   const std::string& pack_path, const ImageFolderOptions& options,
                                   bool force = false);

// "train" and "val" of the tree under `root` (see find_image_folder_root) as a data set.
Result<ImageDataset> load_image_folder_dataset(const std::string& name, const std::string& root,
                                               const ImageFolderOptions& options);

}  // namespace scalestudy::data
