// Lists an ImageFolder tree (torchvision's layout, as TinyImageNet ships it):
//   train/<class>/**/*.{JPEG,jpg,jpeg,png}     (any depth: TinyImageNet uses <class>/images/)
//   val/images/* + val/val_annotations.txt     (TinyImageNet: "file<TAB>wnid<TAB>bbox...")
//   or val/<class>/**/*                        (class folders, as train/)
//   wnids.txt                                  (optional: one class name a line)
// Classes are the train/ folder names in sorted order (torchvision's ImageFolder index);
// when wnids.txt is present it must list the same set. Files are listed in sorted path
// order within a class (annotation order for TinyImageNet's val/), so a listing — and the
// pack built from it — is the same on every machine. A listing carries a fingerprint of
// its sources (count, bytes, newest mtime) to tell when a pack is stale.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::data {

// What a split was built from; a pack whose fingerprint differs from a fresh scan is stale.
struct SourceFingerprint {
  int64_t file_count = 0;
  int64_t total_bytes = 0;
  int64_t newest_mtime_ns = 0;  // since the epoch

  bool operator==(const SourceFingerprint& other) const {
    return file_count == other.file_count && total_bytes == other.total_bytes &&
           newest_mtime_ns == other.newest_mtime_ns;
  }
  bool operator!=(const SourceFingerprint& other) const { return !(*this == other); }
  std::string describe() const;  // "120 files, 245760 bytes, newest mtime 1700000000.123456789s"
};

struct ImageFolderListing {
  std::string split;               // "train" or "val"
  std::vector<std::string> files;  // image paths
  std::vector<int32_t> labels;     // index into the class names, one per file
  SourceFingerprint fingerprint;   // the images plus the annotation file and wnids.txt
};

// True for the extensions decoded: .jpeg .jpg .png, any case.
bool is_image_file_name(const std::string& file_name);

// The sorted class names under <root>/train, checked against <root>/wnids.txt when present.
Result<std::vector<std::string>> scan_class_names(const std::string& root);

// The images and labels of <root>/<split>; every class in it must be one of `class_names`.
Result<ImageFolderListing> scan_split(const std::string& root, const std::string& split,
                                      const std::vector<std::string>& class_names);

}  // namespace scalestudy::data
