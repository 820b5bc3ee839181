// The packed split file ("sspack"): one split of an ImageFolder, decoded once, stored as
// the uint8 [N, C, H, W] tensor and labels an ImageSplit holds, so training starts with a
// memory map instead of 100k JPEG decodes. Full byte layout: docs/pack-format.md. In short,
// little-endian throughout:
//   "SSPACK01" | u32 version | u32 label_bytes (4) | u64 N | u32 C, H, W | u32 classes |
//   source fingerprint (i64 files, i64 bytes, i64 newest mtime ns) | u64 pixel_offset |
//   per class: u32 length + UTF-8 name | N x i32 labels | zero padding to pixel_offset
//   (a multiple of 64) | N*C*H*W uint8 pixels | u64 checksum of all bytes before it |
//   "SSPKEND1".
// write_pack_file() writes a temporary file beside the target and renames it into place,
// so readers never see a partial pack. read_pack_file() maps the file privately
// (copy-on-write) and verifies the checksum. Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/data/image_dataset.hpp"
#include "harness/data/image_folder_scan.hpp"

namespace scalestudy::data {

inline constexpr char kPackMagic[] = "SSPACK01";
inline constexpr char kPackEndMagic[] = "SSPKEND1";
inline constexpr uint32_t kPackVersion = 1;

struct PackHeader {
  int64_t count = 0;
  int64_t channels = 3;
  int64_t height = 0;
  int64_t width = 0;
  std::vector<std::string> class_names;
  SourceFingerprint source;
};

struct PackedSplit {
  PackHeader header;
  ImageSplit split;  // images uint8 [N, C, H, W] (memory-mapped when read), labels int64 [N]
};

// `pixels`: header.count * C * H * W bytes; `labels`: header.count entries.
Status write_pack_file(const std::string& path, const PackHeader& header,
                       const std::vector<int32_t>& labels, const uint8_t* pixels);

// The header alone (cheap: for deciding whether a cached pack is current).
Result<PackHeader> read_pack_header(const std::string& path);

// The whole pack; checks sizes, label range and the checksum.
Result<PackedSplit> read_pack_file(const std::string& path);

}  // namespace scalestudy::data
