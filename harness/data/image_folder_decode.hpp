// Decodes image files into the fixed-size planar RGB uint8 samples of a pack.
//
// ImageDecoder turns one file's bytes into 3 x size x size pixels: JPEG through
// libjpeg-turbo (grayscale expanded to RGB; CMYK/YCCK converted as Adobe's inverted CMYK,
// R = C * K / 255; large images decoded at a reduced DCT scale that still covers the target
// size), PNG through libpng (alpha dropped); the format is told from the bytes, not the
// extension. Then resample_center_square() fits it to the square. Holds a libjpeg-turbo
// handle and scratch buffers: one decoder per thread.
//
// decode_images() runs one decoder per worker thread over a list of files (a shared atomic
// cursor hands out indices); every image lands at its own index, so the bytes do not depend
// on the thread count. Corrupt files are errors naming the file; libjpeg warnings (e.g.
// extraneous bytes before a marker) are tolerated and counted. Thread-safe (no shared
// state besides the output, written at disjoint offsets).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::data {

class ImageDecoder {
 public:
  ImageDecoder();
  ~ImageDecoder();
  ImageDecoder(const ImageDecoder&) = delete;
  ImageDecoder& operator=(const ImageDecoder&) = delete;

  // Decodes `bytes` (the contents of `path`, named in errors) into `out_chw`
  // (3 * out_size * out_size bytes). A tolerated decoder warning is stored in `warning`.
  Status decode(const std::vector<uint8_t>& bytes, const std::string& path, int64_t out_size,
                uint8_t* out_chw, std::string& warning);

 private:
  Status decode_jpeg(const std::vector<uint8_t>& bytes, const std::string& path, int64_t out_size,
                     std::string& warning);
  Status decode_png(const std::vector<uint8_t>& bytes, const std::string& path);

  void* jpeg_handle_ = nullptr;   // tjhandle
  std::vector<uint8_t> decoded_;  // height x width x 3 (or 4 for CMYK before conversion)
  int64_t height_ = 0;
  int64_t width_ = 0;
};

struct DecodeReport {
  int64_t images = 0;
  int threads = 0;
  double seconds = 0;
  int64_t warnings = 0;
  std::string first_warning;  // "path: message" of the first file (by index) with one

  double images_per_second() const { return seconds > 0 ? images / seconds : 0; }
};

// Decodes paths[i] into out + i * 3 * out_size * out_size. `threads` 0: one per hardware
// thread. The error is that of the lowest-index file that failed.
Result<DecodeReport> decode_images(const std::vector<std::string>& paths, int64_t out_size,
                                   int threads, uint8_t* out);

}  // namespace scalestudy::data
